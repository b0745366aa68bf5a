/** The ready-to-paste `curl -N` example both local runners print (README "The two commands"). */
export function demoCurl(baseUrl: string, options: { threadId: string; withAuth: boolean; extraHeaders?: string }): string {
  const body = JSON.stringify({
    threadId: options.threadId,
    runId: 'run-1',
    state: {},
    messages: [{ id: 'message-1', role: 'user', content: 'hello, create a VPC template' }],
    tools: [],
    context: [],
    forwardedProps: { iacCode: { schemaVersion: 1, rosInvocationId: 'invocation-1', cwd: '/workspace/demo' } },
  });
  const auth = options.withAuth ? " -H 'Authorization: Bearer $IAC_CODE_AGUI_AUTH_TOKEN'" : '';
  return [`  curl -N ${baseUrl}/ -H 'Content-Type: application/json' -H 'Accept: text/event-stream'${options.extraHeaders ?? ''}${auth} \\`, `    -d '${body}'`].join('\n');
}

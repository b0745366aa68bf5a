/**
 * The console's page (docs/architecture.md §4.7): a shell that loads one script and one stylesheet by their hashed
 * names (and an empty icon, so the browser asks for no favicon). Nothing inline, so the content security policy can forbid inline script and style
 * (lib/http/console-route.ts). The app fills `#app`; `noscript` explains an empty page.
 */
export function consoleHtml(assets: { script: string; stylesheet: string }): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>iac-code console</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="/console/assets/${assets.stylesheet}">
<script type="module" src="/console/assets/${assets.script}"></script>
</head>
<body>
<div id="app"></div>
<noscript>The iac-code console needs JavaScript.</noscript>
</body>
</html>
`;
}

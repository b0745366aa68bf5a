/**
 * iac-code's two HTTP endpoints beside JSON-RPC (docs/protocol.md §7.8, §7.9): session restore and pipeline
 * state. The restore route can be switched off to behave like v0.13.1, which lacks it (docs/protocol.md §7.8).
 */
import type { Express } from 'express';
import type { EmulatorControls } from './executor.js';
import type { TaskScript } from './task-script.js';

export function mountKernelRoutes(app: Express, controls: EmulatorControls, scripts: ReadonlyMap<string, TaskScript>): void {
  app.post('/iac-code/session/ensure-restored', (req, res, next) => {
    if (!controls.restoreRoute) {
      next();
      return;
    }
    const body = req.body as { cwd?: unknown; sessionId?: unknown; taskId?: unknown };
    if (typeof body?.sessionId !== 'string' || typeof body.cwd !== 'string') {
      res.status(400).json({ error: { code: 'INVALID_REQUEST', message: 'cwd and sessionId are required' } });
      return;
    }
    const state = controls.sessions.get(body.sessionId) ?? 'ok';
    if (state === 'missing') res.status(404).json(missingSessionBody(controls.missingSessionAnswer));
    else if (state === 'backupNotReady') res.status(409).json({ error: { code: 'SESSION_BACKUP_NOT_READY', retryable: true, message: 'Session backup is still synchronizing.' } });
    else res.status(200).json({ status: 'current' });
  });
  // A task that never ran a pipeline has no pipeline state: 404 (docs/protocol.md §7.9).
  app.get('/iac-code/pipeline/state', (req, res) => {
    const taskId = req.query['taskId'];
    const after = Number(req.query['afterSequence'] ?? '0');
    if (typeof taskId !== 'string' || !Number.isInteger(after) || after < 0) {
      res.status(400).json({ error: { code: 'INVALID_REQUEST', message: 'taskId and a non-negative afterSequence are required' } });
      return;
    }
    const log = scripts.get(taskId)?.pipelineLog;
    if (!log) {
      res.status(404).json({ error: { code: 'PIPELINE_NOT_FOUND', message: 'No pipeline state for this task.' } });
      return;
    }
    res.status(200).json(log.state(after));
  });
}

/** The newest kernel answers a missing session with `{"status":"not_found"}`; earlier ones with an `error` object (docs/protocol.md §7.8). */
function missingSessionBody(answer: EmulatorControls['missingSessionAnswer']): Record<string, unknown> {
  return answer === 'status' ? { status: 'not_found' } : { error: { code: 'SESSION_NOT_FOUND', message: 'The iac-code session does not exist.' } };
}

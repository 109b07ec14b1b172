/** What a sandbox handler answers; the listener writes it. Shapes follow the real servers (see dpm-api.md §0.1). */
export interface Reply {
  status: number;
  headers?: Record<string, string>;
  body?: string | Buffer;
  /** answer nothing: the connection is dropped after `afterMs` (a response lost after the work was done) */
  drop?: { afterMs: number };
}

const JSON_TYPE = 'application/json';
const TEXT_TYPE = 'text/plain; charset=utf-8';

export function json(status: number, value: unknown, headers: Record<string, string> = {}): Reply {
  return { status, headers: { 'content-type': JSON_TYPE, ...headers }, body: JSON.stringify(value) };
}

/** The handlers' error body `{"error": "<text>"}`. */
export function jsonError(status: number, error: string): Reply {
  return json(status, { error });
}

/** Framework-level errors (actix extractors) are text/plain, not JSON. */
export function text(status: number, body: string): Reply {
  return { status, headers: { 'content-type': TEXT_TYPE }, body };
}

export function empty(status: number): Reply {
  return { status };
}

/** The web UI's index.html, which the real DPM serves for every unknown GET path (a single-page app). */
export function spaPage(): Reply {
  return {
    status: 200,
    headers: { 'content-type': 'text/html; charset=utf-8' },
    body:
      '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Decentralized Party Manager</title></head>' +
      '<body><div id="root"></div><!-- ledgerbook sandbox: the web UI is not simulated --></body></html>',
  };
}

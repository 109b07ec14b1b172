/**
 * Target files: the target schema with the same readable findings as playbooks, plus the rules a schema cannot
 * say (unique participant ids, credentials complete for their grant, every node able to authenticate).
 */
import { isLoopback } from '../loopback.js';
import { hasUrlCredentials, hideUrlCredentials } from '../url-credentials.js';
import { ValidationError } from '../errors.js';
import { compareDiagnostics, type Diagnostic } from '../diagnostics.js';
import { readSource } from './load.js';
import type { Position, SourceDoc } from '../playbook/model.js';
import { childPointer, parsePointer } from '../playbook/pointer.js';
import { isRecord } from './rule-context.js';
import { checkSchema, genericWhere, type Finding } from '../playbook/schema-check.js';
import type { Target } from '../playbook/target.js';
import { targetSchema, type TargetFile } from '../playbook/target-schema.js';

export interface TargetValidation {
  /** only when there is no error */
  target?: Target;
  diagnostics: Diagnostic[];
  /** findings that do not stop a run (a secret left to the environment, a target without credentials) */
  warnings: Diagnostic[];
}

export interface LoadTargetOptions {
  /** receives the warnings of a valid target */
  warn?: (warning: Diagnostic) => void;
}

/** Load and validate a target file; throws ValidationError('LB_TARGET_INVALID') with every problem. */
export function loadTarget(file: string, options: LoadTargetOptions = {}): Target {
  const { doc, diagnostics } = readSource(file, 'LB_TARGET_INVALID');
  if (diagnostics.length > 0) throw new ValidationError('LB_TARGET_INVALID', diagnostics);
  const result = validateTarget(doc);
  if (!result.target) throw new ValidationError('LB_TARGET_INVALID', result.diagnostics);
  for (const warning of result.warnings) options.warn?.(warning);
  return result.target;
}

export function validateTarget(doc: SourceDoc): TargetValidation {
  const errors: Diagnostic[] = [];
  const warnings: Diagnostic[] = [];
  const report = (
    into: Diagnostic[],
    pointer: string,
    rule: string,
    message: string,
    hint?: string,
    atKey = false,
  ): void => {
    const position = doc.positionOf(pointer, atKey ? 'key' : 'value');
    into.push({ file: doc.file, ...position, pointer, rule, message, hint });
  };
  if (doc.data === null || doc.data === undefined) {
    report(errors, '', 'schema', 'the file is empty', 'a target needs at least name and network');
    return { diagnostics: errors, warnings };
  }
  for (const finding of checkSchema(targetSchema, doc.data, { where: targetWhere }))
    errors.push(toDiagnostic(doc, finding));

  const data = isRecord(doc.data) ? doc.data : {};
  const nodes = isRecord(data['nodes']) ? data['nodes'] : {};
  const declaredSecrets = isRecord(data['secrets']) ? data['secrets'] : {};

  // Participant ids are unique: two names for one participant would act on it twice.
  const owners = new Map<string, string>();
  for (const [name, node] of Object.entries(nodes)) {
    if (!isRecord(node) || typeof node['participantId'] !== 'string') continue;
    const owner = owners.get(node['participantId']);
    if (owner === undefined) {
      owners.set(node['participantId'], name);
      continue;
    }
    report(
      errors,
      childPointer(childPointer('/nodes', name), 'participantId'),
      'duplicate-participant-id',
      `node '${name}' has the participant id of node '${owner}'`,
      'each node is one participant: remove the duplicate or correct its id',
    );
  }

  const authBlocks: { pointer: string; auth: Record<string, unknown> }[] = [];
  if (isRecord(data['auth'])) authBlocks.push({ pointer: '/auth', auth: data['auth'] });
  for (const [name, node] of Object.entries(nodes)) {
    if (isRecord(node) && isRecord(node['auth']))
      authBlocks.push({ pointer: childPointer(childPointer('/nodes', name), 'auth'), auth: node['auth'] });
  }
  const parties = isRecord(data['parties']) ? data['parties'] : {};
  for (const [name, party] of Object.entries(parties)) {
    if (!isRecord(party)) continue;
    const base = childPointer('/parties', name);
    if (isRecord(party['auth'])) authBlocks.push({ pointer: `${base}/auth`, auth: party['auth'] });
    const node = party['node'];
    if (typeof node === 'string' && !Object.hasOwn(nodes, node)) {
      report(
        errors,
        `${base}/node`,
        'unknown-node',
        `party '${name}' is hosted on node '${node}', which is not under nodes:`,
        `nodes of this target: ${Object.keys(nodes).join(', ') || 'none'}`,
      );
    }
  }
  for (const { pointer, auth } of authBlocks) {
    const grant = auth['grant'];
    const needs =
      grant === 'password'
        ? ['username', 'password']
        : grant === 'client_credentials'
          ? ['clientSecret']
          : [];
    for (const key of needs) {
      if (auth[key] !== undefined) continue;
      report(
        errors,
        pointer,
        'auth-grant',
        `the ${String(grant)} grant needs '${key}'`,
        grantHint(String(grant)),
        true,
      );
    }
    if (grant === 'client_credentials') {
      for (const key of ['username', 'password']) {
        if (auth[key] === undefined) continue;
        report(
          errors,
          `${pointer}/${key}`,
          'auth-grant',
          `'${key}' is not used by the client_credentials grant`,
          'remove it, or use grant: password',
          true,
        );
      }
    }
    for (const key of ['password', 'clientSecret']) {
      const ref = auth[key];
      const secret = isRecord(ref) ? ref['secret'] : undefined;
      if (typeof secret !== 'string' || Object.hasOwn(declaredSecrets, secret)) continue;
      report(
        warnings,
        `${pointer}/${key}/secret`,
        'undeclared-secret',
        `secret '${secret}' is not declared under secrets:; it must come from --secrets-file or the environment variable ${secret}`,
        `declare where it comes from: secrets: { ${secret}: { env: ${secret} } }`,
      );
    }
  }

  const urls = targetUrls(data, nodes, parties);
  urlCredentials(urls, (pointer, message, hint) => report(errors, pointer, 'url-credentials', message, hint));
  plainHttp(urls, data['allowPlainHttp'] === true, (pointer, message, hint, lab) =>
    report(lab ? warnings : errors, pointer, 'plain-http', message, hint),
  );

  // Every node authenticates, with its own auth or the target's. Only a devnet may go without: the DPM accepts
  // any token only in its insecure mode, which it refuses on other networks.
  if (!isRecord(data['auth'])) {
    const bare = Object.entries(nodes).filter(([, node]) => isRecord(node) && node['auth'] === undefined);
    for (const [name] of bare) {
      if (data['network'] === 'devnet') continue;
      report(
        errors,
        childPointer('/nodes', name),
        'missing-auth',
        `node '${name}' has no auth and the target has none`,
        'add auth: to the target (for every node) or to this node; only a devnet target may run without credentials',
        true,
      );
    }
    if (data['network'] === 'devnet' && bare.length > 0) {
      report(
        warnings,
        '/network',
        'no-auth',
        `no credentials for ${bare.map(([name]) => `'${name}'`).join(', ')}: requests are sent without a token`,
        'this works only with DPM nodes in insecure mode (devnet); add auth: otherwise',
      );
    }
  }

  errors.sort(compareDiagnostics);
  warnings.sort(compareDiagnostics);
  if (errors.length > 0) return { diagnostics: errors, warnings };
  const secretUses: Record<string, Position> = {};
  for (const { pointer, auth } of authBlocks) {
    for (const key of ['password', 'clientSecret']) {
      const ref = auth[key];
      const secret = isRecord(ref) ? ref['secret'] : undefined;
      if (typeof secret === 'string' && !Object.hasOwn(secretUses, secret))
        secretUses[secret] = doc.positionOf(`${pointer}/${key}/secret`, 'value');
    }
  }
  return { target: { ...(data as TargetFile), file: doc.file, secretUses }, diagnostics: [], warnings };
}

/** A URL field of a target: where it is, what it holds, and whether `allowPlainHttp` may exempt it. */
interface TargetUrl {
  pointer: string;
  value: unknown;
  /** a node's or a service's URL; never the identity provider's issuer */
  exemptable: boolean;
}

/** Every URL field of a target: the issuers, each node's DPM and ledger, each service. */
function targetUrls(
  data: Record<string, unknown>,
  nodes: Record<string, unknown>,
  parties: Record<string, unknown>,
): TargetUrl[] {
  const urls: TargetUrl[] = [];
  const issuerOf = (auth: unknown): unknown => (isRecord(auth) ? auth['issuer'] : undefined);
  urls.push({ pointer: '/auth/issuer', value: issuerOf(data['auth']), exemptable: false });
  for (const [name, node] of Object.entries(nodes)) {
    if (!isRecord(node)) continue;
    const base = childPointer('/nodes', name);
    urls.push(
      { pointer: `${base}/dpm`, value: node['dpm'], exemptable: true },
      { pointer: `${base}/ledger`, value: node['ledger'], exemptable: true },
      { pointer: `${base}/auth/issuer`, value: issuerOf(node['auth']), exemptable: false },
    );
  }
  for (const [name, party] of Object.entries(parties)) {
    if (isRecord(party))
      urls.push({
        pointer: `${childPointer('/parties', name)}/auth/issuer`,
        value: issuerOf(party['auth']),
        exemptable: false,
      });
  }
  const services = isRecord(data['services']) ? data['services'] : {};
  for (const [name, url] of Object.entries(services))
    urls.push({ pointer: childPointer('/services', name), value: url, exemptable: true });
  return urls.filter((u) => typeof u.value === 'string');
}

/**
 * Credentials never travel inside URLs: a user name or password in a URL (`https://user:password@host`) would be
 * printed by every message naming the URL and sent wherever the URL goes. The target names its credentials under
 * `auth:` and their values come from its secret sources.
 */
function urlCredentials(
  urls: readonly TargetUrl[],
  report: (pointer: string, message: string, hint: string) => void,
): void {
  for (const { pointer, value } of urls) {
    if (typeof value !== 'string' || !hasUrlCredentials(value)) continue;
    report(
      pointer,
      `${hideUrlCredentials(value)} carries credentials in the URL (user:password@): they would be printed in messages, logs and events, and sent wherever the URL goes`,
      "remove 'user:password@' from the URL; name the login under auth: (username, password: { secret: NAME }) and say where NAME comes from under secrets: (env: or file:)",
    );
  }
}

/**
 * Bearer tokens and client secrets travel with every request: a URL that is plain http to another machine is
 * refused, unless the target says `allowPlainHttp: true` (a lab network), which is then a warning on every run.
 * The identity provider's issuer is never exempt: the auth client refuses it in any case.
 */
function plainHttp(
  urls: readonly TargetUrl[],
  allowed: boolean,
  report: (pointer: string, message: string, hint: string, lab: boolean) => void,
): void {
  for (const { pointer, value, exemptable } of urls) {
    if (typeof value !== 'string') continue;
    // the schema reports a malformed URL
    if (!URL.canParse(value)) continue;
    const url = new URL(value);
    if (url.protocol !== 'http:' || isLoopback(url.hostname)) continue;
    const lab = allowed && exemptable;
    const shown = hideUrlCredentials(value);
    report(
      pointer,
      lab
        ? `${shown} is plain http to another machine: tokens and secrets sent to it can be read on the network (allowPlainHttp: true)`
        : `${shown} is plain http to another machine: tokens and secrets would travel in clear`,
      lab
        ? 'only on a lab network you trust; use https:// anywhere else'
        : exemptable
          ? 'use https://; plain http is allowed for loopback hosts, or on a lab network with allowPlainHttp: true at the top of the target'
          : 'use https:// for the identity provider; plain http is allowed only for loopback hosts',
      lab,
    );
  }
}

function grantHint(grant: string): string {
  return grant === 'password'
    ? 'add username: and password: { secret: NAME } (IDP_USERNAME / IDP_PASSWORD)'
    : 'add clientSecret: { secret: NAME }';
}

function toDiagnostic(doc: SourceDoc, finding: Finding): Diagnostic {
  const position = doc.positionOf(finding.pointer, finding.atKey ? 'key' : 'value');
  return {
    file: doc.file,
    ...position,
    pointer: finding.pointer,
    message: finding.message,
    expected: finding.expected,
    hint: finding.hint,
    rule: 'schema',
  };
}

/** "in node 'node1'", "in `auth` of node 'node1'", "in secret 'DPM_PASSWORD'" */
function targetWhere(pointer: string): string {
  const [top, name, ...rest] = parsePointer(pointer);
  if (top === 'nodes' && name !== undefined) {
    return rest.length === 0 ? `in node '${name}'` : `in \`${rest.join('.')}\` of node '${name}'`;
  }
  if (top === 'secrets' && name !== undefined && rest.length === 0) return `in secret '${name}'`;
  return genericWhere(pointer);
}

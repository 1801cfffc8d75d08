// Shared fixtures of the client tests: the server binary under test, temp
// workspaces, /proc probes and a strict checker of results against the
// result schemas the server lists.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createRequire } from 'node:module';

export const packageDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(import.meta.url);
/** The compiled package, as a consumer loads it. */
export const client = require(packageDir);

export const bin = process.env.TOOLRPC_BIN;
if (!bin) throw new Error('TOOLRPC_BIN is not set: run the tests with `npm test`, which builds toolrpc, or set it to a toolrpc binary');

/** workspace makes a temp dir with a workspace root (holding files) and a data dir, removed after the test unless keep. */
export function workspace(t, files = {}, keep = false) {
  const base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'toolrpc-ts-test-')));
  const root = path.join(base, 'root dir');
  const dataDir = path.join(base, 'data');
  fs.mkdirSync(root);
  fs.mkdirSync(dataDir);
  for (const [name, content] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(root, name)), { recursive: true });
    fs.writeFileSync(path.join(root, name), content);
  }
  if (!keep) t.after(() => fs.rmSync(base, { recursive: true, force: true }));
  return { base, root, dataDir };
}

/** start spawns a client on a fresh workspace and closes it after the test. */
export async function start(t, files, opts = {}) {
  const ws = workspace(t, files, true);
  const tr = await client.ToolRPC.spawn({ bin, root: ws.root, dataDir: ws.dataDir, ...opts }).catch((e) => {
    fs.rmSync(ws.base, { recursive: true, force: true });
    throw e;
  });
  // Close first: the server may still be writing its data dir (a content
  // index) until it has exited, and a failed removal must not skip the close.
  t.after(async () => {
    await tr.close();
    fs.rmSync(ws.base, { recursive: true, force: true });
  });
  return { tr, ...ws };
}

/** procState is the state letter of pid in /proc (R, S, Z, ...), or null if there is no such process. */
export function procState(pid) {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[0];
  } catch {
    return null;
  }
}

/** ownSession reports whether pid leads its own session (setsid ran). */
export function ownSession(pid) {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[3]) === pid;
  } catch {
    return false;
  }
}

/** alive reports whether pid runs (a zombie or a missing pid is not alive). */
export function alive(pid) {
  const s = procState(pid);
  return s !== null && s !== 'Z' && s !== 'X';
}

export async function until(cond, ms = 30000) {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (await cond()) return true;
    await new Promise((r) => setTimeout(r, 10));
  }
  return cond();
}

/** rejection returns what promise rejected with, or fails if it resolved. */
export async function rejection(promise) {
  try {
    const v = await promise;
    throw new Error(`expected a rejection, got ${JSON.stringify(v).slice(0, 300)}`);
  } catch (e) {
    return e;
  }
}

/**
 * resultSchemas are the result schemas of the server under test, from its
 * tools/list outputSchema: by tool name, and every titled sub-schema by title
 * under $defs (GrepContentResult, StreamInfo, ...).
 */
export const resultSchemas = await (async () => {
  const { listTools } = await import('../scripts/generate.mjs');
  const out = { $defs: {} };
  const collect = (s) => {
    if (Array.isArray(s)) return s.forEach(collect);
    if (s === null || typeof s !== 'object') return;
    if (s.title) out.$defs[s.title] = s;
    Object.values(s).forEach(collect);
  };
  for (const tool of await listTools(bin)) {
    out[tool.name] = (tool.outputSchema.anyOf || [tool.outputSchema]).find((a) => a.title !== 'ErrorObject');
    collect(tool.outputSchema);
  }
  return out;
})();

/**
 * conform lists how value breaks schema, strictly: a member an object schema
 * does not declare is a problem (the result types would miss it).
 */
export function conform(schema, value, where = '$', defs = resultSchemas.$defs) {
  if (schema.$ref) return conform(defs[schema.$ref.replace('#/$defs/', '')], value, where, defs);
  const alts = schema.oneOf || schema.anyOf;
  if (alts) {
    const each = alts.map((s) => conform(s, value, where, defs));
    return each.some((p) => p.length === 0) ? [] : [`${where}: fits no alternative: ${each.map((p) => p.join('; ')).join(' | ')}`];
  }
  if ('const' in schema) return value === schema.const ? [] : [`${where}: want ${JSON.stringify(schema.const)}`];
  if (schema.enum) return schema.enum.includes(value) ? [] : [`${where}: ${JSON.stringify(value)} not in enum`];
  const types = Array.isArray(schema.type) ? schema.type : [schema.type];
  const is = {
    string: (v) => typeof v === 'string',
    integer: (v) => Number.isInteger(v),
    number: (v) => typeof v === 'number',
    boolean: (v) => typeof v === 'boolean',
    null: (v) => v === null,
    array: (v) => Array.isArray(v),
    object: (v) => v !== null && typeof v === 'object' && !Array.isArray(v),
  };
  const t = types.find((ty) => is[ty](value));
  if (!t) return [`${where}: ${JSON.stringify(value)?.slice(0, 80)} is not ${types.join('|')}`];
  const problems = [];
  if (t === 'string' && schema.pattern && !new RegExp(schema.pattern).test(value)) problems.push(`${where}: ${value} does not match ${schema.pattern}`);
  if (t === 'array' && schema.items) value.forEach((v, i) => problems.push(...conform(schema.items, v, `${where}[${i}]`, defs)));
  if (t === 'object') {
    const props = schema.properties || {};
    for (const r of schema.required || []) if (!(r in value)) problems.push(`${where}: missing ${r}`);
    for (const [k, v] of Object.entries(value)) {
      if (props[k]) problems.push(...conform(props[k], v, `${where}.${k}`, defs));
      else if (schema.additionalProperties && typeof schema.additionalProperties === 'object') problems.push(...conform(schema.additionalProperties, v, `${where}.${k}`, defs));
      else problems.push(`${where}: undeclared member ${k}`);
    }
  }
  return problems;
}

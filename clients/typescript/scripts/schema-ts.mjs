// schema-ts turns the JSON Schema subset toolrpc uses into TypeScript source.
// A keyword outside that subset throws, so a server schema the generator
// cannot express fails generation instead of producing a looser type.

const structural = new Set(['type', 'properties', 'required', 'additionalProperties', 'items', 'enum', 'const', 'oneOf', 'anyOf', '$ref']);
const documentary = new Set(['title', 'description', 'minimum', 'maximum', 'minLength', 'maxLength', 'minItems', 'maxItems', 'pattern', 'default', '$comment']);

/** typeName maps a tool name to its type prefix: "tools/read" -> "Read". */
export function typeName(tool) {
  // tools/process/start -> ProcessStart; elsewhere the last segment names it.
  const base = tool.startsWith('tools/process/') ? tool.slice('tools/'.length) : tool.slice(tool.lastIndexOf('/') + 1);
  return base.replace(/(^|[-_./])([a-z])/g, (_, __, c) => c.toUpperCase());
}

function check(schema, where) {
  if (schema === null || typeof schema !== 'object' || Array.isArray(schema)) {
    throw new Error(`${where}: schema is not an object`);
  }
  for (const k of Object.keys(schema)) {
    if (!structural.has(k) && !documentary.has(k)) throw new Error(`${where}: unsupported JSON Schema keyword "${k}"`);
  }
}

// docOf renders a schema's description and constraints as one comment line.
function docOf(schema) {
  const parts = [];
  if (schema.description) parts.push(schema.description);
  const c = [];
  for (const k of ['minimum', 'maximum', 'minLength', 'maxLength', 'minItems', 'maxItems', 'pattern', 'default']) {
    if (schema[k] !== undefined) c.push(`${k} ${JSON.stringify(schema[k])}`);
  }
  if (c.length) parts.push(`(${c.join(', ')})`);
  return parts.join(' ').replace(/\*\//g, '*\\/');
}

function comment(text, indent) {
  if (!text) return '';
  return `${indent}/** ${text} */\n`;
}

const prim = { string: 'string', integer: 'number', number: 'number', boolean: 'boolean', null: 'null' };

/** tsType renders schema as a TypeScript type expression. */
export function tsType(schema, where, indent = '') {
  check(schema, where);
  if (schema.$ref) {
    const m = /^#\/\$defs\/([A-Za-z0-9]+)$/.exec(schema.$ref);
    if (!m) throw new Error(`${where}: unsupported $ref ${schema.$ref}`);
    return m[1];
  }
  const alts = schema.oneOf || schema.anyOf;
  if (alts) return alts.map((s, i) => tsType(s, `${where}[${i}]`, indent)).join(' | ');
  if ('const' in schema) return JSON.stringify(schema.const);
  if (schema.enum) return schema.enum.map((v) => JSON.stringify(v)).join(' | ');
  const types = Array.isArray(schema.type) ? schema.type : [schema.type];
  if (schema.type === undefined) throw new Error(`${where}: schema without type`);
  return types.map((t) => one(schema, t, where, indent)).join(' | ');
}

function one(schema, t, where, indent) {
  if (prim[t]) return prim[t];
  if (t === 'array') {
    const item = schema.items ? tsType(schema.items, `${where}.items`, indent) : 'unknown';
    return /[|&]/.test(item) && !item.startsWith('{') ? `(${item})[]` : `${item}[]`;
  }
  if (t !== 'object') throw new Error(`${where}: unsupported type ${t}`);
  if (!schema.properties) {
    const ap = schema.additionalProperties;
    const v = ap && typeof ap === 'object' ? tsType(ap, `${where}.additionalProperties`, indent) : 'unknown';
    return `Record<string, ${v}>`;
  }
  if (schema.additionalProperties && typeof schema.additionalProperties === 'object') {
    throw new Error(`${where}: properties together with an additionalProperties schema`);
  }
  return objectBody(schema, where, indent);
}

function objectBody(schema, where, indent) {
  const required = new Set(schema.required || []);
  for (const r of required) {
    if (!(r in schema.properties)) throw new Error(`${where}: required "${r}" is not a property`);
  }
  const inner = indent + '  ';
  let out = '{\n';
  for (const [name, prop] of Object.entries(schema.properties)) {
    out += comment(docOf(prop), inner);
    const key = /^[A-Za-z_$][A-Za-z0-9_$]*$/.test(name) ? name : JSON.stringify(name);
    out += `${inner}${key}${required.has(name) ? '' : '?'}: ${tsType(prop, `${where}.${name}`, inner)};\n`;
  }
  return out + indent + '}';
}

/** declaration renders `export interface Name {...}` or `export type Name = ...;`. */
export function declaration(name, schema, where, extraDoc) {
  check(schema, where);
  const doc = [extraDoc, docOf(schema)].filter(Boolean).join(' ');
  const head = comment(doc, '');
  const isInterface = !schema.$ref && !schema.oneOf && !schema.anyOf && schema.type === 'object' && schema.properties;
  if (isInterface) return `${head}export interface ${name} ${objectBody(schema, where, '')}\n`;
  return `${head}export type ${name} = ${tsType(schema, where, '')};\n`;
}

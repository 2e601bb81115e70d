// The settings JSON Schema (GET /api/settings/schema), which the settings page is made from: every
// section and every field carries a readable title (a new setting cannot ship without one), fixed
// choices are enums with names, secrets are marked writeOnly, and the route publishes it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { coreSettings } from '../../../src/servers/core.ts';
import { choicesOf, settingKind, type SettingSchema } from '../../../src/protocol/settings-form.ts';
import { getJson, startServer } from '../../support/server.ts';

const schema = coreSettings.jsonSchema();

/** Every field of the document, groups included, by its dotted path. */
function fields(node: SettingSchema, prefix: string): [string, SettingSchema][] {
  return Object.entries(node.properties ?? {}).flatMap(([key, child]) => {
    const path = `${prefix}.${key}`;
    return [[path, child] as [string, SettingSchema], ...(settingKind(child) === 'group' ? fields(child, path) : [])];
  });
}

const sections = Object.entries(schema.properties!);
const all = sections.flatMap(([name, section]) => fields(section, name));

test('every section of the settings document has a readable title', () => {
  assert.deepEqual(Object.keys(schema.properties!), Object.keys(coreSettings.sections), 'one schema per section, in order');
  for (const [name, section] of sections) {
    assert.ok(section.title && section.title.trim().length > 1, `section '${name}' has a title`);
    assert.notEqual(section.title, name, `section '${name}': the title is words, not the key`);
  }
});

test('every settings field has a title (its label): a setting without one cannot ship', () => {
  assert.ok(all.length > 60, `all the fields are found (${all.length})`);
  const untitled = all.filter(([, field]) => !field.title?.trim()).map(([path]) => path);
  assert.deepEqual(untitled, [], 'fields without a title: add .meta({ title, description }) to their schema');
  for (const [path, field] of all) {
    const key = path.split('.').at(-1)!;
    // a label is words for people, not the key (`stallSec`) nor the key split up (`Stall Sec`)
    assert.notEqual(field.title, key, path);
    if (/[A-Z]/.test(key)) assert.notEqual(field.title, key.replace(/([a-z])([A-Z])/g, '$1 $2').replace(/^./, (c) => c.toUpperCase()), `${path}: '${field.title}' is the key split up`);
    if (field.description !== undefined) assert.ok(field.description.trim().length > 3, `${path}: the help is words`);
  }
});

test('fixed choices are enums with a name for each value; numbers give their bounds', () => {
  const kinds = Object.fromEntries(all.map(([path, field]) => [path, settingKind(field)]));
  for (const path of ['vision.locator', 'vision.target', 'vision.cliProvider', 'orchestration.stallAction', 'voice.engine', 'agent.provider', 'memory.summarize.provider']) {
    assert.equal(kinds[path], 'choice', `${path} is a choice`);
    const field = all.find(([p]) => p === path)![1];
    for (const choice of choicesOf(field)!) assert.notEqual(choice.label, choice.value || undefined, `${path}: '${choice.value}' has a name`);
  }
  assert.deepEqual(choicesOf(all.find(([p]) => p === 'voice.engine')![1])!.map((c) => c.value), ['auto', 'offline', 'endpoint']);
  for (const [path, field] of all) {
    if (settingKind(field) === 'number') assert.ok(field.minimum !== undefined && field.maximum !== undefined, `${path} has bounds the page can name`);
  }
  assert.equal(kinds['agent.autoApprove'], 'boolean');
  assert.equal(kinds['agent.systemPrompt'], 'multiline');
  assert.equal(kinds['network.allowedHosts'], 'list');
  assert.equal(kinds['agent.env'], 'map');
  assert.equal(kinds['channels.telegram'], 'group');
});

test('the secrets are the fields marked writeOnly, and the redaction follows them', () => {
  const marked = all.filter(([, field]) => field.writeOnly).map(([path]) => path);
  assert.deepEqual(marked, ['agent.env', 'vision.apiKey', 'memory.embeddings.apiKey', 'channels.telegram.botToken', 'channels.discord.botToken', 'voice.apiKey']);
  const declared = Object.entries(coreSettings.sections).flatMap(([name, section]) => section.secrets.map((s) => `${name}.${s}`));
  assert.deepEqual(declared, marked);
  for (const [path] of all) {
    if (/(key|token|secret|password)$/i.test(path) && !/apiBaseUrl$/.test(path)) assert.ok(marked.includes(path), `${path} looks like a secret and is marked`);
  }
});

test('GET /api/settings/schema publishes the schema, and the OpenAPI document names the route', async (t) => {
  const server = await startServer();
  t.after(() => server.close());
  const answer = await getJson(`${server.url}/api/settings/schema`);
  assert.equal(answer.status, 200);
  assert.deepEqual(answer.body, JSON.parse(JSON.stringify(schema)));
  assert.equal(answer.body.properties.orchestration.properties.stallSec.title, 'Stall warning after (s)');
  assert.deepEqual(answer.body.properties.orchestration.properties.stallAction.enum, ['warn', 'kill']);
  const settings = (await getJson(`${server.url}/api/settings`)).body;
  for (const [name, values] of Object.entries(settings as Record<string, Record<string, unknown>>)) {
    assert.deepEqual(Object.keys(values), Object.keys(answer.body.properties[name].properties), `every field of ${name} is in the schema`);
  }
  const openapi = (await getJson(`${server.url}/api/openapi.json`)).body;
  assert.ok(openapi.paths['/api/settings/schema'].get, 'documented in OpenAPI');
});

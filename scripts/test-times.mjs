// A reporter for node's test runner (beside `spec`, scripts/test.mjs): each test file's time, from the
// runner's own `test:complete` of the file (its process from start to exit, imports and servers
// included), written as JSON to the reporter's destination, slowest first.
export default async function* fileTimes(source) {
  const files = [];
  for await (const event of source) {
    const { data } = event;
    if (event.type === 'test:complete' && data.nesting === 0 && data.name === data.file) {
      files.push({ file: sourceOf(data.file), seconds: Number((data.details.duration_ms / 1000).toFixed(1)), passed: data.details.passed !== false });
    }
  }
  files.sort((a, b) => b.seconds - a.seconds);
  yield `${JSON.stringify({ files }, null, 1)}\n`;
}

/** The test's source file for a compiled one (.cache/test-build/test/x.test.mjs is test/x.test.ts). */
function sourceOf(file) {
  const at = file.indexOf('/.cache/test-build/');
  return at < 0 ? file : file.slice(0, at + 1) + file.slice(at + '/.cache/test-build/'.length).replace(/\.mjs$/, '.ts');
}

// The npm package in Node: every golden vector answers byte for byte as the native core's
// answer recorded in tests/vectors/, and the typed request() returns `ok` or throws a
// BatonError carrying the registry code.
import { test } from "node:test";
import assert from "node:assert/strict";
import { createRequire } from "node:module";
import { join } from "node:path";
import { loadVectors, packageDir, requirePackage } from "./vectors.mjs";

requirePackage();
const baton = createRequire(import.meta.url)(join(packageDir, "index.cjs"));

test("every golden vector answers byte for byte in Node", () => {
  const vectors = loadVectors();
  assert.ok(vectors.length >= 40, `only ${vectors.length} vectors found`);
  for (const { name, requests, answers } of vectors) {
    const got = requests.map((r) => baton.handleJson(r));
    assert.deepEqual(got, answers, `${name}: the Node package answers differently`);
  }
});

test("request() gives the ok value, typed by op, and throws BatonError with the code", () => {
  const version = baton.request({ op: "version" });
  assert.equal(version.abi_version, 1);
  assert.ok(version.ops.includes("analyzer_usage"));
  baton.request({ op: "analyzer_open", analyzer: "node-test" });
  baton.request({ op: "analyzer_begin", analyzer: "node-test", name: "s.jsonl" });
  assert.throws(
    () => baton.request({ op: "analyzer_finish", analyzer: "missing" }),
    (e) => e instanceof baton.BatonError && e.code === "INVALID_ARGUMENT" && e.details.field === "analyzer",
  );
  baton.request({ op: "analyzer_close", analyzer: "node-test" });
  assert.throws(() => baton.request({ op: "nope" }), (e) => e.code === "INVALID_ARGUMENT");
});

// The golden vectors of tests/vectors/, read as the Rust tests read them: a
// NAME.request.json is one request and NAME.answer.json its answer; a NAME.requests.ndjson is
// a script (one request per line) and NAME.answers.ndjson one answer per line.
import { readdirSync, readFileSync, existsSync } from "node:fs";
import { join, resolve, dirname } from "node:path";
import { fileURLToPath } from "node:url";

export const root = resolve(dirname(fileURLToPath(import.meta.url)), "../../..");
export const packageDir = join(root, "target/npm/baton-core");
const dir = join(root, "tests/vectors");

export function loadVectors() {
  const vectors = [];
  for (const file of readdirSync(dir).sort()) {
    let name, requests, answers;
    if (file.endsWith(".request.json")) {
      name = file.slice(0, -".request.json".length);
      requests = [readFileSync(join(dir, file), "utf8")];
      answers = [readFileSync(join(dir, `${name}.answer.json`), "utf8").trimEnd()];
    } else if (file.endsWith(".requests.ndjson")) {
      name = file.slice(0, -".requests.ndjson".length);
      requests = readFileSync(join(dir, file), "utf8").split("\n").filter((l) => l.trim());
      answers = readFileSync(join(dir, `${name}.answers.ndjson`), "utf8").split("\n").filter((l) => l);
    } else {
      continue;
    }
    vectors.push({ name, requests, answers });
  }
  return vectors;
}

export function requirePackage() {
  if (!existsSync(join(packageDir, "package.json"))) {
    throw new Error(`${packageDir} is missing: run host-web/npm/build.sh first`);
  }
}

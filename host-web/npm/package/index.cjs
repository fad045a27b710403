// baton-core for Node: the core's wasm (loaded synchronously from node/) and `request()`,
// which sends one typed ABI request and returns its `ok`, or throws a BatonError.
"use strict";
const core = require("./node/baton_web.js");

class BatonError extends Error {
  constructor(error) {
    super(error.message);
    this.name = "BatonError";
    this.code = error.code;
    this.details = error.details;
  }
}

function request(body) {
  const answer = JSON.parse(core.handleJson(JSON.stringify(body)));
  if (answer.error) throw new BatonError(answer.error);
  return answer.ok;
}

exports.request = request;
exports.BatonError = BatonError;
exports.handleJson = core.handleJson;
exports.call = core.call;
exports.version = core.version;
exports.Analyzer = core.Analyzer;
exports.renderMarkdown = core.renderMarkdown;
exports.foldLedger = core.foldLedger;
exports.analyze = core.analyze;
exports.humanDuration = core.humanDuration;

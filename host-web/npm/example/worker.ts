// The same core in a browser worker (an editor's webview): init once, then request().
import init, { request, type ConversationRow } from "baton-core/web";

export async function search(file: Uint8Array, words: string): Promise<ConversationRow[]> {
  await init();
  request({ op: "analyzer_open", analyzer: "webview" });
  request({ op: "analyzer_begin", analyzer: "webview", name: "conversations.json" });
  let binary = "";
  for (const byte of file) binary += String.fromCharCode(byte);
  request({ op: "analyzer_push", analyzer: "webview", base64: btoa(binary) });
  request({ op: "analyzer_finish", analyzer: "webview" });
  const page = request({ op: "analyzer_list", analyzer: "webview", query: { search: words, limit: 20 } });
  request({ op: "analyzer_close", analyzer: "webview" });
  return page.rows;
}

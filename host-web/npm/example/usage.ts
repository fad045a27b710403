// What an editor extension does with baton-core in Node: push a transcript in chunks, read
// its cost per day, fold a ledger and ask a session's health. Type-checked by `tsc --noEmit`.
import { request, BatonError, type Session, type UsageRow } from "baton-core";

export function dailyCost(name: string, chunks: string[]): UsageRow[] {
  request({ op: "analyzer_open", analyzer: "editor" });
  try {
    request({ op: "analyzer_begin", analyzer: "editor", name });
    for (const text of chunks) request({ op: "analyzer_push", analyzer: "editor", text });
    const file = request({ op: "analyzer_finish", analyzer: "editor" });
    console.log(`${file.name}: ${file.conversations} conversation(s), ${file.messages} message(s)`);
    const usage = request({ op: "analyzer_usage", analyzer: "editor", group_by: "daily" });
    return "rows" in usage ? usage.rows : [];
  } finally {
    request({ op: "analyzer_close", analyzer: "editor" });
  }
}

export function liveSessions(ledger: string): Session[] {
  const { sessions } = request({ op: "fold", ledger });
  return sessions.filter((s) => s.status === "working" || s.status === "paused");
}

export function healthLine(ledger: string, sessionId: string, now: Date): string {
  try {
    const answer = request({
      op: "query",
      ledger,
      now: now.toISOString(),
      human: true,
      request: { op: "health", session_id: sessionId },
    });
    return answer.human ?? "";
  } catch (e) {
    if (e instanceof BatonError && e.code === "SESSION_NOT_FOUND") return "no such session";
    throw e;
  }
}

export function refusedAtCompileTime(): void {
  // @ts-expect-error: `hourly` is not a grouping the core knows.
  request({ op: "analyzer_usage", analyzer: "editor", group_by: "hourly" });
  // @ts-expect-error: `fold` needs the ledger's text.
  request({ op: "fold" });
  const version = request({ op: "version" });
  // @ts-expect-error: the ABI version is a number.
  version.abi_version.toUpperCase();
}

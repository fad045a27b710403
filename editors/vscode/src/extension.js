// @ts-check
// The VS Code side: a tree of the workspace's work sessions, the current session's health in
// the status bar, refreshes when the ledger changes, and commands to start and end a session
// (through the `baton` binary: the extension never appends to the ledger itself) and to open
// a session's timeline (read by the embedded core).
"use strict";

const vscode = require("vscode");
const path = require("node:path");
const { execFile } = require("node:child_process");
const model = require("./model");

/** Runs the baton binary with `--json` on the workspace's own ledger (`cwd/.baton`, the one
 * the tree reads, never one found further up); resolves its one JSON object. */
function runBaton(binary, args, cwd) {
  const dir = path.join(cwd, ".baton");
  return new Promise((resolve, reject) => {
    execFile(binary, ["--json", "--dir", dir, ...args], { cwd, timeout: 30_000, maxBuffer: 64 << 20 }, (error, stdout, stderr) => {
      if (error && /** @type {any} */ (error).code === "ENOENT") {
        reject(new Error(`The baton binary was not found ("${binary}"). Install it (cargo install --path host-native in Baton's repository) or set "baton.path".`));
        return;
      }
      let answer = null;
      try {
        answer = JSON.parse(stdout);
      } catch {
        // Not JSON: the error below says what baton printed.
      }
      if (answer && answer.error) reject(new Error(`${answer.error.code}: ${answer.error.message}`));
      else if (error || !answer) reject(new Error((stderr || stdout || String(error)).trim()));
      else resolve(answer);
    });
  });
}

class SessionsProvider {
  constructor(folder, core, settings) {
    this.folder = folder;
    this.core = core;
    this.settings = settings;
    this.changed = new vscode.EventEmitter();
    this.onDidChangeTreeData = this.changed.event;
    this.rows = { live: [], ended: [], total: 0 };
    this.ledger = "";
    this.problem = null;
    this.generation = 0;
  }

  get batonDir() {
    return path.join(this.folder, ".baton");
  }

  /** Reads the ledger again (and asks `baton watch` for liveness and cost when it can). A
   * refresh overtaken by a later one while it waited for the binary leaves the rows alone. */
  async refresh(now = new Date()) {
    const generation = ++this.generation;
    let rows, ledger, problem = null;
    try {
      const read = model.readWorkspace(this.core, this.batonDir);
      ledger = read.ledger;
      let watch = null;
      try {
        watch = await runBaton(this.settings().path, ["watch", "--once"], this.folder);
      } catch {
        watch = null; // no binary, or an older one: the ledger alone still answers.
      }
      rows = model.sessionRows(read.work, watch, now, this.settings().endedShown);
    } catch (e) {
      problem = e instanceof Error ? e.message : String(e);
    }
    if (generation !== this.generation) return this.rows;
    if (rows) {
      this.rows = rows;
      this.ledger = ledger;
    }
    this.problem = problem;
    this.changed.fire(undefined);
    return this.rows;
  }

  getTreeItem(node) {
    return node;
  }

  getChildren(node) {
    if (!node) {
      const items = this.rows.live.map((row) => sessionItem(row));
      if (this.rows.ended.length) {
        const group = new vscode.TreeItem(`Ended (${this.rows.ended.length})`, vscode.TreeItemCollapsibleState.Collapsed);
        group.contextValue = "ended";
        group.id = "baton.ended";
        items.push(group);
      }
      if (this.problem) {
        const item = new vscode.TreeItem(`Could not read the ledger: ${this.problem}`);
        item.iconPath = new vscode.ThemeIcon("error");
        items.unshift(item);
      }
      return items;
    }
    if (node.contextValue === "ended") return this.rows.ended.map((row) => sessionItem(row));
    return [];
  }
}

const STATUS_ICONS = { working: "pulse", paused: "debug-pause", complete: "pass", failed: "error", abandoned: "circle-slash" };
const VERDICT_COLOURS = { healthy: "charts.green", degraded: "charts.yellow", stale: "charts.red" };

function sessionItem(row) {
  const item = new vscode.TreeItem(row.label, vscode.TreeItemCollapsibleState.None);
  item.id = row.id;
  item.description = row.description;
  item.tooltip = new vscode.MarkdownString(row.tooltip);
  item.contextValue = row.live ? "session.live" : "session.ended";
  const colour = row.live && row.verdict ? new vscode.ThemeColor(VERDICT_COLOURS[row.verdict]) : undefined;
  item.iconPath = new vscode.ThemeIcon(STATUS_ICONS[row.status] ?? "circle-outline", colour);
  item.command = { command: "baton.openTimeline", title: "Open Timeline", arguments: [item] };
  item.row = row;
  return item;
}

/** Which session a command is about: the tree item it was run on, or one picked. */
async function pickSession(provider, node, liveOnly) {
  if (node && node.row) return node.row;
  const rows = liveOnly ? provider.rows.live : [...provider.rows.live, ...provider.rows.ended];
  if (rows.length === 0) {
    vscode.window.showInformationMessage(liveOnly ? "No live work session to end." : "No work session yet.");
    return null;
  }
  if (rows.length === 1) return rows[0];
  const picked = await vscode.window.showQuickPick(
    rows.map((row) => ({ label: row.label, description: row.description, row })),
    { placeHolder: "Which work session?" },
  );
  return picked ? picked.row : null;
}

function activate(context) {
  const folder = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
  if (!folder) return undefined;
  const settings = () => {
    const config = vscode.workspace.getConfiguration("baton");
    return {
      path: config.get("path", "baton"),
      agent: config.get("agent", "vscode"),
      endedShown: config.get("endedShown", 20),
    };
  };
  const core = model.loadCore();
  const provider = new SessionsProvider(folder, core, settings);
  const status = vscode.window.createStatusBarItem(vscode.StatusBarAlignment.Left, 50);

  const refresh = async () => {
    await provider.refresh();
    const line = model.statusLine(provider.rows);
    status.text = line.text;
    status.tooltip = line.tooltip;
    const current = provider.rows.live.find((row) => row.id === line.session);
    status.command = current
      ? { command: "baton.openTimeline", title: "Open Timeline", arguments: [{ row: current }] }
      : "baton.startSession";
    status.show();
    return provider.rows;
  };

  let pending = null;
  const refreshSoon = () => {
    clearTimeout(pending);
    pending = setTimeout(refresh, 250);
  };
  const watcher = vscode.workspace.createFileSystemWatcher(
    new vscode.RelativePattern(folder, ".baton/{events.ndjson,sealed-*.ndjson,archive/*.ndjson}"),
  );
  watcher.onDidChange(refreshSoon);
  watcher.onDidCreate(refreshSoon);
  watcher.onDidDelete(refreshSoon);
  // Liveness and "last activity" age without any write; cheap (the fold is milliseconds).
  const ticker = setInterval(refresh, 30_000);

  const project = path.basename(folder);
  context.subscriptions.push(
    vscode.window.registerTreeDataProvider("baton.sessions", provider),
    status,
    watcher,
    { dispose: () => { clearInterval(ticker); clearTimeout(pending); } },
    vscode.commands.registerCommand("baton.refresh", refresh),
    vscode.commands.registerCommand("baton.startSession", async () => {
      const goal = await vscode.window.showInputBox({
        prompt: `Start a work session in ${project} as ${settings().agent}: what is it for?`,
        placeHolder: "e.g. Add search to the session list",
      });
      if (goal === undefined) return null;
      try {
        // `--flag=value`: a goal starting with `-` stays a goal.
        const args = ["start", `--project=${project}`, `--agent=${settings().agent}`, "--client=vscode"];
        if (goal.trim()) args.push(`--goal=${goal.trim()}`);
        const answer = await runBaton(settings().path, args, folder);
        vscode.window.showInformationMessage(`Started ${answer.path}.`);
        await refresh();
        return answer;
      } catch (e) {
        vscode.window.showErrorMessage(`Baton could not start a session: ${e.message}`);
        return null;
      }
    }),
    vscode.commands.registerCommand("baton.endSession", async (node) => {
      const row = await pickSession(provider, node, true);
      if (!row) return null;
      const summary = await vscode.window.showInputBox({ prompt: `End ${row.path}: what was done?` });
      if (summary === undefined) return null;
      try {
        const args = ["end"];
        if (summary.trim()) args.push(`--summary=${summary.trim()}`);
        args.push("--", row.id);
        const answer = await runBaton(settings().path, args, folder);
        vscode.window.showInformationMessage(`Ended ${answer.path} (${answer.status}).`);
        await refresh();
        return answer;
      } catch (e) {
        vscode.window.showErrorMessage(`Baton could not end the session: ${e.message}`);
        return null;
      }
    }),
    vscode.commands.registerCommand("baton.openTimeline", async (node) => {
      const row = await pickSession(provider, node, false);
      if (!row) return null;
      try {
        const content = model.timelineMarkdown(core, provider.ledger, row.id, `${row.path}: ${row.label}`, new Date());
        const document = await vscode.workspace.openTextDocument({ language: "markdown", content });
        await vscode.window.showTextDocument(document, { preview: true });
        return document;
      } catch (e) {
        vscode.window.showErrorMessage(`Baton could not read the timeline: ${e.message}`);
        return null;
      }
    }),
  );
  const ready = refresh();
  return { provider, status, ready, refresh };
}

function deactivate() {}

module.exports = { activate, deactivate, runBaton };

// A stand-in for the `vscode` module, as much of it as the extension uses: it records what the
// extension shows (tree, status bar, messages, documents) and lets a test answer its prompts
// and fire the file watcher, so the extension's logic runs under plain Node.
"use strict";

class EventEmitter {
  constructor() { this.listeners = []; this.event = (fn) => { this.listeners.push(fn); return { dispose() {} }; }; }
  fire(value) { for (const fn of this.listeners) fn(value); }
}
class TreeItem { constructor(label, collapsibleState) { this.label = label; this.collapsibleState = collapsibleState; } }
class ThemeIcon { constructor(id, color) { this.id = id; this.color = color; } }
class ThemeColor { constructor(id) { this.id = id; } }
class MarkdownString { constructor(value) { this.value = value; } }
class RelativePattern { constructor(base, pattern) { this.base = base; this.pattern = pattern; } }

const state = {
  folder: null,
  config: {},
  commands: new Map(),
  providers: new Map(),
  statusItems: [],
  watchers: [],
  messages: [],
  documents: [],
  inputs: [],
  picks: [],
};

const vscode = {
  EventEmitter, TreeItem, ThemeIcon, ThemeColor, MarkdownString, RelativePattern,
  TreeItemCollapsibleState: { None: 0, Collapsed: 1, Expanded: 2 },
  StatusBarAlignment: { Left: 1, Right: 2 },
  workspace: {
    get workspaceFolders() { return state.folder ? [{ uri: { fsPath: state.folder } }] : undefined; },
    getConfiguration: () => ({ get: (key, fallback) => (key in state.config ? state.config[key] : fallback) }),
    createFileSystemWatcher(pattern) {
      const watcher = { pattern, change: new EventEmitter(), create: new EventEmitter(), remove: new EventEmitter(), dispose() {} };
      watcher.onDidChange = watcher.change.event;
      watcher.onDidCreate = watcher.create.event;
      watcher.onDidDelete = watcher.remove.event;
      state.watchers.push(watcher);
      return watcher;
    },
    openTextDocument: async (options) => { const doc = { ...options }; state.documents.push(doc); return doc; },
  },
  window: {
    createStatusBarItem(alignment, priority) {
      const item = { alignment, priority, text: "", tooltip: "", shown: false, show() { this.shown = true; }, dispose() {} };
      state.statusItems.push(item);
      return item;
    },
    registerTreeDataProvider(id, provider) { state.providers.set(id, provider); return { dispose() {} }; },
    showInformationMessage: (text) => { state.messages.push({ level: "info", text }); },
    showErrorMessage: (text) => { state.messages.push({ level: "error", text }); },
    showInputBox: async (options) => { state.inputs.push(options); return state.answers?.input?.shift(); },
    showQuickPick: async (items) => { state.picks.push(items); return items[state.answers?.pick ?? 0]; },
    showTextDocument: async (doc) => doc,
  },
  commands: {
    registerCommand(id, fn) { state.commands.set(id, fn); return { dispose() {} }; },
    executeCommand(id, ...args) { return state.commands.get(id)(...args); },
  },
};

// The API as the extension requires it; `_stub` is the test's handle on what it recorded.
module.exports = Object.assign(vscode, { _stub: state });

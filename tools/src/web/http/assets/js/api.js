// The server asked and its answers taken in: the address of a game's
// request, the server's streams of events read, a change posted, a state
// applied, the game kept for the next visit, and a draw offered at this
// board answered.

import { capitalised, render, store, ui } from "./state.js";
import { ask, serverLost, setConn, showMessage } from "./notices.js";
import { countResult, personColor } from "./game.js";
import { replyShown, sound } from "./board.js";

// The address of `path` for the game on the board (and this browser's
// seat, in a room).
export const api = (path) => `${path}?id=${ui.S.id}` + (ui.S.room && ui.seat ? `&seat=${ui.seat}` : "");

// The server's news as it comes: each event of a stream of server-sent
// events (`response`'s body), as `{ event, data }` (its data lines
// joined), until the stream ends. Read from a fetch, not an EventSource,
// which sends no headers: a player's token goes in one, as an address is
// kept in logs. Leaving the loop early closes the stream, so that it
// holds none of the browser's few connections to the server. A stream
// silent for longer than a few of the server's refreshes (it sends its
// news again now and then when nothing changed: events.rs's REFRESH) is
// dead though never closed, as behind a proxy or a network that dropped
// it: it ends with an error, as a stream lost does.
const SILENT_FOR_MS = 45000;
export async function* events(response) {
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  let rest = "", event = "", data = [];
  let timer;
  const silence = () => new Promise((_, fail) => {
    timer = setTimeout(() => fail(new Error("the stream went silent")), SILENT_FOR_MS);
  });
  try {
    for (;;) {
      const { done, value: chunk } = await Promise.race([reader.read(), silence()]).finally(() => clearTimeout(timer));
      if (done) return;
      // A line may come cut in two: its start waits for the rest.
      const lines = (rest + decoder.decode(chunk, { stream: true })).split("\n");
      rest = lines.pop();
      for (const raw of lines) {
        const line = raw.endsWith("\r") ? raw.slice(0, -1) : raw;
        if (line === "") {
          // A blank line ends an event; one without data is none.
          if (data.length) yield { event: event || "message", data: data.join("\n") };
          event = ""; data = [];
        } else if (!line.startsWith(":")) {
          const colon = line.includes(":") ? line.indexOf(":") : line.length;
          const field = line.slice(0, colon), value = line.slice(colon + 1).replace(/^ /, "");
          if (field === "event") event = value;
          else if (field === "data") data.push(value);
        }
      }
    }
  } finally {
    reader.cancel().catch(() => {});
  }
}

export async function post(path, body) {
  // A game watched is its players': nothing is asked of it.
  if (ui.S && ui.S.watching) return false;
  ui.note = null;
  try {
    const r = await fetch(api(path), { method: "POST", body: body || "" });
    const j = await r.json();
    if (!r.ok) { showMessage(j.error); return false; }
    apply(j);
    return true;
  } catch (e) {
    serverLost("lost connection to the server");
    return false;
  }
}
export function apply(s) {
  if (ui.S && s.version < ui.S.version && s.id === ui.S.id) return;
  const newLine = !ui.S || s.history.length !== ui.S.history.length || s.id !== ui.S.id;
  const offered = ui.S && ui.S.drawOffer;
  const oneMore = ui.S && s.id === ui.S.id && s.history.length === ui.S.history.length + 1;
  const ended = ui.S && s.id === ui.S.id && !ui.S.outcome && s.outcome;
  ui.S = s;
  ui.received = Date.now();
  // The server answered: whatever was said of the connection is over.
  setConn("");
  ui.offline = false;
  if (oneMore && ui.viewPly === null) {
    const last = ui.S.history[ui.S.history.length - 1];
    ui.arriving = { move: last.move, color: last.board[last.move.to] };
    sound(last.move, false);
    // (With the engine stopped the person plays its side too: no reply.)
    if (personColor() && ui.arriving.color !== personColor() && !ui.S.engine.failure) replyShown(last.move);
  }
  if (ended) { sound(null, true); ui.note = null; }
  if (newLine) { ui.sel = null; ui.pending = null; if (!ui.S.outcome) ui.note = null; }
  if (newLine && !oneMore) ui.replySeenAt = 0;
  if (ui.S.drawOffer && !offered && !ui.S.watching && ui.S.drawOffer !== (ui.S.room && ui.S.room.you)) answerDraw();
  countResult();
  saveGame();
  render();
}

// The game in progress, kept so that a page closed and opened again
// resumes it; a game over is not kept.
export function saveGame() {
  if (ui.S.room || ui.S.rated) return;
  if (ui.S.outcome || ui.S.history.length === 0) { store.set("game", null); return; }
  const c = ui.S.clock, k = ui.S.settings.clock;
  // The time left now: the running clock has gone on since S came.
  const left = c && { ...c.left };
  if (c && c.running) left[c.running] = Math.max(0, left[c.running] - (Date.now() - ui.received));
  store.set("game", {
    variant: ui.S.variant, nMoveRule: ui.S.settings.nMoveRule, flying: ui.S.settings.flying, fullBoard: ui.S.settings.fullBoard,
    engine: ui.S.settings.engine, level: ui.S.settings.level, movetime: ui.S.settings.movetime, training: ui.S.settings.training,
    clock: k ? { kind: k.kind, seconds: k.time / 1000, increment: k.increment / 1000 } : null,
    start: ui.S.start.fen,
    moves: ui.S.history.map((h) => h.move.text),
    clockLeft: left || undefined,
    setUp: ui.S.setUp,
  });
}

// A draw offered at this board: the other player answers.
async function answerDraw() {
  const side = ui.S.drawOffer;
  const who = ui.S.rated ? ui.S.rated[side].name : capitalised(side);
  const yes = await ask(`${who} offers a draw.`, "Accept", "Decline");
  if (ui.S.drawOffer && !ui.S.outcome) post("/api/draw", yes ? "accept" : "decline");
}

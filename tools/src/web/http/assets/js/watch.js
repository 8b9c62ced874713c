// Watching: the rated games being played, listed for anyone (by the
// lobby's stream when signed in, else asked for now and then), and the
// board that follows one live, its moves and clocks, with no values
// until it is over.

import { $, fillWith, sleep, ui } from "./state.js";
import { showMessage } from "./notices.js";
import { playingRated, rounded } from "./game.js";
import { clockChoice, clockName, rulesWords } from "./choices.js";
import { showBoard } from "./board.js";
import { api, apply } from "./api.js";
import { backToOwnBoard, leaveGame } from "./room.js";
import { addButton, fillList } from "./profile.js";

// The games being played as last told, drawn again when the board changes.
let lastPlaying = [];
// The games being played, each to watch.
export function drawPlaying(playing) {
  lastPlaying = playing;
  fillList($("playing"), playing, (g, li) => {
    const watchers = g.spectators ? ` · ${g.spectators} watching` : "";
    fillWith(li, [g.white, ` (${rounded(g.white.rating)}) – `, g.black, ` (${rounded(g.black.rating)}) · ${rulesWords(g)} · ${clockName(clockChoice(g.clock))}${watchers}`]);
    const mine = ui.player && [g.white.name, g.black.name].includes(ui.player.name);
    const shown = ui.S && ui.S.watching && ui.S.id === g.watch;
    if (!mine) addButton(li, shown ? "Watching" : "Watch", () => watchGame(g.watch), shown);
  }, "no rated game is being played");
}
// The board follows the rated game watched by the number `watch`: a game
// of this browser's own is kept to come back to, a room left first.
async function watchGame(watch) {
  if (playingRated()) { showMessage("finish your rated game first"); return; }
  if (ui.S && ui.S.room && !await backToOwnBoard()) return;
  try {
    const r = await fetch(`/api/watch?watch=${watch}`);
    const j = await r.json();
    if (!r.ok) { showMessage(j.error); return; }
    if (ui.S && !ui.S.rated && !ui.S.room) fetch(api("/api/close"), { method: "POST" }).catch(() => {});
    leaveGame();
    ui.seat = null;
    apply(j);
    showBoard();
    // The game watched says so at once, not at the list's next news.
    drawPlaying(lastPlaying);
  } catch (e) { showMessage("lost connection to the server"); }
}
// The address of the stream of the game on the board: a spectator's, or
// a game's own.
export const gameEventsPath = () => (ui.S.watching ? `/api/watch/events?watch=${ui.S.id}` : api("/api/events"));
// Signed out, the list is asked for now and then (signed in, the lobby's
// stream brings it).
async function askNowAndThen() {
  for (;;) {
    if (!ui.player) {
      try {
        const r = await fetch("/api/live");
        if (r.ok) drawPlaying((await r.json()).playing);
      } catch (e) { /* asked again below */ }
    }
    await sleep(10000);
  }
}
askNowAndThen();

// The players' standing: the table of ratings, and a player's games,
// each to open on a board of this browser's own; and the lists that it
// and the lobby fill.

import { $, ui } from "./state.js";
import { showMessage } from "./notices.js";
import { forfeit, playingRated, ratingWords, rounded } from "./game.js";
import { showBoard } from "./board.js";
import { post } from "./api.js";
import { backToOwnBoard } from "./room.js";

// Fills the list `ul` with `items`, each by `fill(item, li)`, or says
// `empty`.
export function fillList(ul, items, fill, empty) {
  ul.replaceChildren();
  for (const item of items) {
    const li = document.createElement("li");
    fill(item, li);
    ul.appendChild(li);
  }
  if (!items.length && empty) {
    const li = document.createElement("li");
    li.className = "empty"; li.textContent = empty;
    ul.appendChild(li);
  }
}
// A button `text` added to `li`, doing `onclick`.
export function addButton(li, text, onclick, disabled) {
  const b = document.createElement("button");
  b.textContent = text; b.onclick = onclick; b.disabled = !!disabled;
  li.appendChild(b);
  return b;
}
// The table of ratings; a name shows that player's games.
export async function showTable() {
  try {
    const r = await fetch("/api/table");
    if (!r.ok) return;
    fillList($("table"), (await r.json()).slice(0, 50), (p, li) => {
      li.className = "link"; li.title = `${p.name}'s games`;
      li.textContent = `${p.name} ${ratingWords(p)} · ${p.games} game${p.games === 1 ? "" : "s"}`;
      li.title = `deviation ${rounded(p.deviation)}`;
      li.onclick = () => showHistory(p.name);
    });
  } catch (e) { /* the next refresh tries again */ }
}
// The games of the player `name`, each to open on the board.
export async function showHistory(name) {
  try {
    const r = await fetch(`/api/history?name=${encodeURIComponent(name)}`);
    if (!r.ok) return;
    ui.historyOf = name;
    $("historyHead").textContent = ui.player && name === ui.player.name ? "Your games" : `Games of ${name}`;
    const change = (pair) => `${rounded(pair[0])} → ${rounded(pair[1])}`;
    fillList($("history"), await r.json(), (g, li) => {
      li.textContent = `${g.white} – ${g.black}, ${g.result}: ${g.termination} · `
        + (g.rated ? `${change(g.whiteRating)}, ${change(g.blackRating)}` : "unrated (over before the tenth move)");
      addButton(li, "Open", () => openPast(g.record));
    }, "no games yet");
  } catch (e) { /* the next refresh tries again */ }
}
// A past game opened on a board of this browser's own.
async function openPast(record) {
  if (playingRated()) { showMessage("finish your rated game first"); return; }
  if (ui.S.room || ui.S.rated) { if (!await backToOwnBoard()) return; }
  else if (!await forfeit("Open this game?", "Open")) return;
  ui.viewPly = null;
  if (await post("/api/record", record)) showBoard();
}

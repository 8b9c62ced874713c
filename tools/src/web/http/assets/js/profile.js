// The players' standing: the table of ratings, a player's games, each to
// open on a board of this browser's own, and a player's page (its rating
// over time, its results by colour and by opponent, its latest games),
// opened from any name shown; and the lists that it and the lobby fill.

import { $, SVG, fillWith, ui } from "./state.js";
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
      fillWith(li, [p, ` ${ratingWords(p)} · ${p.games} game${p.games === 1 ? "" : "s"}`]);
      li.title = `deviation ${rounded(p.deviation)}`;
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
    fillList($("history"), await r.json(), (g, li) => pastGame(g, li), "no games yet");
  } catch (e) { /* the next refresh tries again */ }
}
// The past game `g` in `li`: its players, result, ratings, and a button
// that opens it.
function pastGame(g, li) {
  const change = (pair) => `${rounded(pair[0])} → ${rounded(pair[1])}`;
  fillWith(li, [{ name: g.white }, " – ", { name: g.black }, `, ${g.result}: ${g.termination} · `
    + (g.rated ? `${change(g.whiteRating)}, ${change(g.blackRating)}` : "unrated (over before the tenth move)")]);
  addButton(li, "Open", () => { $("profile").hidden = true; openPast(g.record); });
}
// The page of the player `name`: its rating (a range in words while it is
// provisional), the rating after each rated game as a chart, its results
// by colour and against each opponent, and its latest games.
export async function showProfile(name) {
  try {
    const r = await fetch(`/api/profile?name=${encodeURIComponent(name)}`);
    const p = await r.json();
    if (!r.ok) { showMessage(p.error); return; }
    $("profileName").textContent = p.name;
    const since = new Date(p.since).toLocaleDateString();
    const low = rounded(p.rating - 2 * p.deviation), high = rounded(p.rating + 2 * p.deviation);
    $("profileRating").textContent = p.level ? `Rating ${rounded(p.rating)}: one of the engine's levels, rated at its measured strength, which no game moves.`
      : `Rating ${ratingWords(p)}${p.provisional ? " (provisional)" : ""}: between ${low} and ${high} with 95% confidence (deviation ${rounded(p.deviation)}) · ${p.games} rated game${p.games === 1 ? "" : "s"} · playing since ${since}.`;
    drawChart(p.level ? [] : p.ratings);
    const tally = (t) => `${t.wins} won, ${t.draws} drawn, ${t.losses} lost`;
    $("profileResults").textContent = `As White: ${tally(p.byColor.white)}. As Black: ${tally(p.byColor.black)}.`;
    fillList($("profileOpponents"), p.byOpponent, (o, li) => fillWith(li, [o, `: ${tally(o)}`]), "no games yet");
    fillList($("profileGames"), p.latest, (g, li) => pastGame(g, li), "no games yet");
    $("profile").hidden = false;
    $("profile").scrollTop = 0;
  } catch (e) { showMessage("lost connection to the server"); }
}
// The rating after each rated game, from a newcomer's 1500 before the
// first, as a line over the games.
function drawChart(ratings) {
  const svg = $("profileChart");
  svg.replaceChildren();
  svg.hidden = ratings.length === 0;
  if (svg.hidden) return;
  const values = [1500, ...ratings.map((p) => p.rating)];
  const lo = Math.floor(Math.min(...values) / 50) * 50 - 50, hi = Math.ceil(Math.max(...values) / 50) * 50 + 50;
  // Room above the top line for its label, at a phone's larger size too.
  const [left, right, top, bottom] = [48, 630, 24, 200];
  const x = (i) => left + (right - left) * i / (values.length - 1);
  const y = (v) => bottom - (bottom - top) * (v - lo) / (hi - lo);
  const add = (name, attrs, text) => {
    const e = document.createElementNS(SVG, name);
    for (const k in attrs) e.setAttribute(k, attrs[k]);
    if (text !== undefined) e.textContent = text;
    return svg.appendChild(e);
  };
  for (const v of [lo, Math.round((lo + hi) / 2), hi]) {
    add("line", { x1: left, y1: y(v), x2: right, y2: y(v) });
    add("text", { x: 2, y: y(v) + 4 }, String(v));
  }
  add("polyline", { points: values.map((v, i) => `${x(i)},${y(v)}`).join(" ") });
  // A mark for each game, its rating after it told on hover.
  ratings.forEach((p, i) => {
    const mark = add("circle", { cx: x(i + 1), cy: y(p.rating), r: 4 });
    mark.appendChild(document.createElementNS(SVG, "title")).textContent = `after game ${i + 1}: ${Math.round(p.rating)}`;
  });
}
$("profileX").onclick = () => { $("profile").hidden = true; };
$("profile").addEventListener("click", (evt) => { if (evt.target === $("profile")) $("profile").hidden = true; });
// Any name shown opens the player's page.
document.addEventListener("click", (evt) => {
  const name = evt.target.closest && evt.target.closest(".name[data-name]");
  if (name) showProfile(name.dataset.name);
});
// A past game opened on a board of this browser's own.
async function openPast(record) {
  if (playingRated()) { showMessage("finish your rated game first"); return; }
  if (ui.S.room || ui.S.rated) { if (!await backToOwnBoard()) return; }
  else if (!await forfeit("Open this game?", "Open")) return;
  ui.viewPly = null;
  if (await post("/api/record", record)) showBoard();
}

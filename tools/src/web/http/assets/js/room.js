// The board's games: a room, where a friend plays from another browser
// (joined by a code or a link, left, its seat kept here), and the game of
// this browser's own, opened, kept when the page goes, and gone back to.

import { $, DEFAULT_PREFS, fillWith, prefs, savePrefs, store, ui } from "./state.js";
import { ask, copy, setConn, showMessage } from "./notices.js";
import { byCorrespondence, engineSide, friendAwaited, playingRated } from "./game.js";
import { clockOf, rulesOf, settings_json } from "./choices.js";
import { api, apply, post, saveGame } from "./api.js";

// A room's code as the server keeps it, from the code as typed or linked.
export const roomCode = (typed) => typed.replace(/[^0-9a-z]/gi, "").toUpperCase();
// The room the address links to (`#room=CODE`), if any.
export const linkedRoom = () => new URLSearchParams(location.hash.slice(1)).get("room");

// The room, when a friend plays in another browser.
export function drawRoom() {
  // A rated game, like a friend's, is played without the engine's help.
  document.body.classList.toggle("inroom", !!ui.S.room || !!ui.S.rated);
  document.body.classList.toggle("ratedgame", !!ui.S.rated);
  document.body.classList.toggle("watching", !!ui.S.watching);
  $("noroom").hidden = !!ui.S.room;
  $("inroom").hidden = !ui.S.room;
  const r = ui.S.rated;
  $("ratedLine").hidden = !r;
  if (r) {
    // Each rating as the game began, and once it is over, where it went.
    const moved = (p) => r.moved && p.after != null && Math.round(p.after) !== Math.round(p.rating);
    const side = (p) => [p, ` (${Math.round(p.rating)}${moved(p) ? ` → ${Math.round(p.after)}` : ""})`];
    const presence = { waiting: "your opponent left", here: "your opponent is here", away: "your opponent is away" };
    const after = r.moved === false ? " · over before the tenth move of each side: no rating moved"
      : ui.S.room && !ui.S.outcome ? ` · ${presence[ui.S.room.opponent]}` : "";
    const what = ui.S.watching ? "Watching a rated game" : "Rated game";
    fillWith($("ratedLine"), [`${what}: White `, ...side(r.white), ", Black ", ...side(r.black), after]);
  }
  // A rated game's room lets nobody in: it has no code to show, and
  // its game is left by resigning.
  if (!ui.S.room || r) return;
  $("roomCode").textContent = ui.S.room.code;
  $("roomYou").textContent = ui.S.room.you;
  const words = { waiting: "waiting for your friend: send them the code or the link", here: "your friend is here", away: "your friend is away" };
  $("roomOpponent").textContent = words[ui.S.room.opponent];
}

// Sits this browser down in a room (with `code`, or the room it sat in),
// back at its seat if it had one there; why not, if it could not.
export async function joinRoom(code) {
  const kept = store.get("room", null);
  const body = { code };
  if (kept && kept.code === roomCode(code)) body.seat = kept.seat;
  const r = await fetch("/api/join", { method: "POST", body: JSON.stringify(body) });
  const j = await r.json();
  if (!r.ok) return j.error;
  enterRoom(j);
  return null;
}
// Joins the room whose code the person typed.
async function joinTyped() {
  if (inRatedGame()) return;
  const refused = await joinRoom($("code").value);
  if (refused) showMessage(refused);
}
// Another game on the board: the old one's stream is given up.
export function leaveGame() {
  if (ui.gameEvents) ui.gameEvents.abort();
  ui.viewPly = null; ui.S = null;
}
// The board goes to the room the server sat this browser down in.
function enterRoom(j) {
  leaveGame();
  ui.seat = j.room.seat;
  store.set("room", { code: j.room.code, seat: ui.seat });
  history.replaceState(null, "", "#room=" + j.room.code);
  apply(j);
}
// A rated game in play is left only by losing it, from its own controls.
function inRatedGame() {
  if (!playingRated()) return false;
  showMessage("finish your rated game first");
  return true;
}
$("createRoom").onclick = async () => {
  if (inRatedGame()) return;
  const color = prefs.color === "white" || prefs.color === "black" ? prefs.color : "random";
  const body = { ...rulesOf(), color, clock: clockOf(prefs.clock) };
  try {
    const r = await fetch("/api/room", { method: "POST", body: JSON.stringify(body) });
    const j = await r.json();
    if (!r.ok) { showMessage(j.error); return; }
    enterRoom(j);
  } catch (e) { setConn("lost connection to the server"); }
};
$("join").onclick = joinTyped;
$("code").addEventListener("keydown", (evt) => { if (evt.key === "Enter") joinTyped(); });
$("copyLink").onclick = () => copy($("copyLink"), `${location.origin}/#room=${ui.S.room.code}`);
// Leaves the room, and the board its game, after asking if that loses a
// game in progress; whether it left.
async function leaveRoom() {
  // A rated game is lost when left, even before its first move.
  const playing = !ui.S.outcome && (ui.S.history.length > 0 || !!ui.S.rated) && !friendAwaited();
  if (playing && !await ask("Leave the room? You lose the game in progress.", "Leave", "Stay")) return false;
  // Left first, so that its stream's word of the room closed is not
  // taken for a game the server lost.
  const leave = api("/api/leave");
  leaveGame();
  try { await fetch(leave, { method: "POST" }); } catch (e) { /* the server forgets the seat in time */ }
  store.set("room", null); ui.seat = null;
  return true;
}
$("leave").onclick = async () => {
  if (!await leaveRoom()) return;
  history.replaceState(null, "", location.pathname);
  await openGame();
};

// The server's refusal of a game, in its words.
export class Refused extends Error {}

// A game of this browser's own: the one left when the page was closed,
// if it still replays, else a new one.
export async function openGame() {
  const saved = store.get("game", null);
  const r = await fetch("/api/game", { method: "POST", body: settings_json(engineSide(prefs.color)) });
  const fresh = await r.json();
  if (!r.ok) {
    // Preferences this server refuses are forgotten; a server too busy
    // for another game keeps them, and says so.
    if (r.status === 400) { Object.assign(prefs, DEFAULT_PREFS); savePrefs(); }
    throw new Refused(fresh.error);
  }
  apply(fresh);
  if (saved && !await post("/api/new", JSON.stringify(saved))) store.set("game", null);
}

// The page going away: its game is kept here with the clocks as they are,
// and the server may close it and its engine at once (a room waits for
// its seats to come back).
window.addEventListener("pagehide", () => {
  if (!ui.S) return;
  saveGame();
  // A game watched is its players': the server forgets the spectator.
  if (ui.S.watching) return;
  // A room's friend is told at once that this page went.
  // A rated game waits for its player too: its clock ends it.
  navigator.sendBeacon(api(ui.S.room || ui.S.rated ? "/api/away" : "/api/close"));
});

// A room's link opened where the page already is changes only the
// address's #: the page is opened again, to join it, once it has left
// the room it is in (or stays there, the person choosing to).
window.addEventListener("hashchange", async () => {
  const linked = linkedRoom();
  if (!linked || (ui.S && ui.S.room && ui.S.room.code === roomCode(linked))) return;
  if (ui.S && ui.S.room && !await leaveRoom()) {
    history.replaceState(null, "", "#room=" + ui.S.room.code);
    return;
  }
  location.reload();
});

// Leaves a rated game (lost if it is in play, after asking) or a room for
// a game of this browser's own; whether it left.
export async function backToOwnBoard() {
  if (ui.S.watching || (ui.S.rated && byCorrespondence())) {
    // A correspondence game waits in the lobby's list.
    leaveGame();
  } else if (ui.S.room) {
    if (!await leaveRoom()) return false;
    history.replaceState(null, "", location.pathname);
  } else {
    if (!ui.S.outcome && !await ask("Leave the game? You lose it.", "Leave", "Play on")) return false;
    // Left first, as a room is (see leaveRoom).
    const close = api("/api/close");
    leaveGame();
    try { await fetch(close, { method: "POST" }); } catch (e) { /* closed in time */ }
  }
  await openGame();
  return true;
}

// Rated play: the player made or signed in (its token kept here), the
// lobby followed by a stream of its own, challenges posted (to anyone or
// to a player named), taken, declined or withdrawn, rematches, the
// engine's levels played, and the board sent to the player's rated game.

import { $, fillWith, prefs, render, savePrefs, sleep, store, ui } from "./state.js";
import { ask, closeNote, copy, setConn, showMessage } from "./notices.js";
import { playingRated, ratingWords, rounded } from "./game.js";
import { byCorrespondenceChoice, clockChoice, clockName, clockOf, clockText, deadline, drawChallengeRules, rulesOf, rulesWords } from "./choices.js";
import { showBoard } from "./board.js";
import { api, apply, events } from "./api.js";
import { backToOwnBoard, leaveGame, openGame } from "./room.js";
import { addButton, fillList, showHistory, showTable } from "./profile.js";
import { drawPlaying } from "./watch.js";

// The lobby as the server last told it, or the way to sign in.
function drawLobby() {
  $("signedOut").hidden = !!ui.player;
  $("signedIn").hidden = !ui.player;
  drawChallengeRules();
  if (!ui.player || !ui.lobby) return;
  // A game at a sitting leaves the player free for correspondence.
  const L = ui.lobby, busy = !!L.game, corresponding = byCorrespondenceChoice($("ratedClock").value);
  $("meName").textContent = L.me.name;
  $("meRating").textContent = `rating ${rounded(L.me.rating)}${L.me.provisional ? " (provisional)" : ""} · deviation ${rounded(L.me.deviation)} · ${L.me.games} rated game${L.me.games === 1 ? "" : "s"}`;
  $("postChallenge").disabled = busy && !corresponding;
  fillList($("challenges"), L.challenges, (c, li) => {
    const side = c.side === "random" ? "a side drawn" : c.mine ? `you play ${c.side}` : `${c.name} plays ${c.side}`;
    const range = c.range ? ` · for ratings ${rounded(c.rating - c.range)} to ${rounded(c.rating + c.range)}` : "";
    const by = [{ name: c.name }, ` (${rounded(c.rating)})`];
    const who = c.rematchOf ? (c.mine ? ["Your rematch to ", { name: c.to }] : [...by, " offers you a rematch"])
      : c.to ? (c.mine ? ["Your challenge to ", { name: c.to }] : [...by, " challenges you"])
      : by;
    fillWith(li, [...who, ` · ${rulesWords(c)} · ${clockName(clockChoice(c.clock))} · ${side}${range}`]);
    if (c.to && !c.mine) li.className = "tome";
    if (c.mine) addButton(li, "Withdraw", () => ratedPost("/api/withdraw", { challenge: c.id }));
    else addButton(li, "Accept", () => accept(c), (busy && !c.clock.correspondence) || !c.openToMe).title = c.openToMe ? "" : "your rating is out of its range";
    if (c.to && !c.mine) addButton(li, "Decline", () => ratedPost("/api/decline", { challenge: c.id }));
  }, "no challenge is open: post one, or play a level");
  fillList($("correspondence"), L.correspondence, (g, li) => {
    const mine = g.turn === g.you, left = g.left === null ? [] : [" · ", unbroken(`${clockText(g.left / 1000)} left`), ", until ", deadline(g.left)];
    fillWith(li, [`You play ${g.you} against `, { name: g.opponent }, mine ? " · your move" : " · their move", ...left]);
    if (mine) li.className = "tome";
    addButton(li, "Open", () => openCorrespondence(g));
  }, "none: post a challenge of days a move");
  fillList($("levels"), L.levels, (p, li) => {
    fillWith(li, [p, ` (${ratingWords(p)})`]);
    addButton(li, "Play", () => playLevel(p.name), busy);
  });
  fillList($("present"), L.present, (p, li) => {
    fillWith(li, [p, ` (${rounded(p.rating)})${p.playing ? " · playing" : ""}`]);
    if (p.name !== L.me.name) addButton(li, "Challenge", () => challengePlayer(p.name), (busy || p.playing) && !corresponding).title = `a rated game with ${p.name} alone, by the choices above`;
  });
  tellDeclined(L.declined);
  drawPlaying(L.playing);
}
// `text` kept on one line (a time left split after its number is misread).
function unbroken(text) {
  const span = document.createElement("span");
  span.className = "unbroken"; span.textContent = text;
  return span;
}
// Each challenge of the player's declined, told once.
function tellDeclined(declined) {
  for (const d of declined) {
    if (ui.declinedTold.has(d.id)) continue;
    ui.declinedTold.add(d.id);
    showMessage(`${d.name} declined your challenge`);
  }
}
// The header that carries a player's token: not in the address, which
// logs keep.
const bearer = (token) => ({ Authorization: `Bearer ${token}` });
// A request of the player's to the lobby: the answer, or null (the
// refusal shown).
async function ratedPost(path, body) {
  ui.note = null;
  try {
    const r = await fetch(path, { method: "POST", body: JSON.stringify({ ...body, token: ui.player.token }) });
    const j = await r.json();
    if (!r.ok) { showMessage(j.error); return null; }
    closeNote();
    return j;
  } catch (e) { setConn("lost connection to the server"); return null; }
}
// The rated game's choices, kept as they were last chosen.
for (const id of ["ratedClock", "ratedColor", "ratedRange"]) {
  if ([...$(id).options].some((o) => o.value === prefs[id])) $(id).value = prefs[id];
  $(id).onchange = () => { prefs[id] = $(id).value; savePrefs(); drawLobby(); };
}
// A challenge as the page's choices make it.
const ratedChoices = () => ({ ...rulesOf(), clock: clockOf($("ratedClock").value), color: $("ratedColor").value,
  range: Number($("ratedRange").value) || null });
$("postChallenge").onclick = () => ratedPost("/api/challenge", ratedChoices());
// A challenge to the player `name` alone, by the page's choices (a
// rating range is for challenges open to anyone).
const challengePlayer = (name) => ratedPost("/api/challenge", { ...ratedChoices(), range: null, opponent: name });
// The rated game over on the board, again with the colours swapped: the
// opponent's offer taken, or one made (against a level, begun at once).
$("rematch").onclick = async () => {
  const j = await ratedPost("/api/rematch", { game: ui.S.id });
  if (j && j.id) enterRated(j, j.room ? j.room.seat : null);
};
$("rematchDecline").onclick = () => {
  const offer = ui.lobby && ui.lobby.challenges.find((c) => c.rematchOf === ui.S.id && !c.mine);
  if (offer) ratedPost("/api/decline", { challenge: offer.id });
};
// Takes the challenge `c`: its game is played at once, or, by
// correspondence while a game at a sitting goes on, waits in the list.
async function accept(c) {
  const j = await ratedPost("/api/accept", { challenge: c.id });
  if (!j) return;
  if (c.clock.correspondence && ui.lobby && ui.lobby.game) showMessage("Taken: the game waits in your correspondence games");
  else enterRated(j, j.room.seat);
}
// A rated game against the engine's level `name`.
async function playLevel(name) {
  const j = await ratedPost("/api/challenge", { ...ratedChoices(), opponent: name });
  if (j) enterRated(j, null);
}
// The board goes to a rated game (the state `j`, the player's `seatToken`
// in a room): a game of this browser's own is closed, its engine with it.
function enterRated(j, seatToken) {
  if (ui.S && !ui.S.room && !ui.S.rated) fetch(api("/api/close"), { method: "POST" }).catch(() => {});
  leaveGame();
  ui.seat = seatToken;
  apply(j);
  showBoard();
}
// The player's rated game, from the lobby: the board goes to it unless it
// is there already; whether the board shows it.
async function takeSeat(game) {
  if (!game) return false;
  if (ui.S && ui.S.id === game.id && (ui.seat || null) === (game.seat || null)) return true;
  const r = await fetch(`/api/state?id=${game.id}&after=0` + (game.seat ? `&seat=${game.seat}` : ""));
  if (r.ok) enterRated(await r.json(), game.seat || null);
  return r.ok;
}
// The board goes to the player's correspondence game `game`: a rated game
// at a sitting is finished first, a room left, a game of this browser's
// own closed.
async function openCorrespondence(game) {
  if (playingRated()) { showMessage("finish your rated game first"); return; }
  if (ui.S && ui.S.room && !ui.S.rated && !await backToOwnBoard()) return;
  await takeSeat(game);
}
// Whether the lobby had the player's rated game, now taken up again.
export async function resumeRated() {
  try {
    const r = await fetch("/api/lobby?after=0", { headers: bearer(ui.player.token) });
    const j = await r.json();
    return r.ok && await takeSeat(j.game);
  } catch (e) { return false; }
}
// The lobby, heard as long as the player `me` is signed in here: a
// stream lost is opened again, soon at first and then less often.
async function hearLobby(me) {
  let wait = 500;
  while (ui.player === me) {
    // Aborted when the player signs out.
    ui.lobbyEvents = new AbortController();
    try {
      const r = await fetch("/api/lobby/events", { signal: ui.lobbyEvents.signal, headers: bearer(me.token) });
      if (ui.player !== me) return;
      if (r.status === 401) { refused((await r.json()).error); return; }
      if (!r.ok) { $("present").textContent = (await r.json()).error; await sleep(5000); continue; }
      for await (const { event, data } of events(r)) {
        if (ui.player !== me) return;
        const j = JSON.parse(data);
        if (event === "refused") { refused(j.error); return; }
        if (event !== "lobby") continue;
        wait = 500;
        // A rating moved (a game was kept): the table and the games with it.
        // A game of the player's kept, rated or not (over too soon): its
        // place in the lobby gone.
        const ratings = JSON.stringify([j.me, j.levels, j.present]);
        const kept = ui.lobby && ui.lobby.game && !j.game;
        if (ui.lobby && (ratings !== ui.lobbyRatings || kept)) { showTable(); showHistory(ui.historyOf || me.name); }
        ui.lobbyRatings = ratings;
        ui.lobby = j;
        drawLobby();
        // A rematch offered or taken shows in the result box.
        if (ui.S) render();
        await takeSeat(j.game);
      }
    } catch (e) { /* the stream is lost: opened again below */ }
    if (ui.player !== me) return;
    await sleep(wait);
    wait = Math.min(2 * wait, 3000);
  }
}
// The player's token is nobody's (any more): signed out here, and told.
function refused(error) {
  signOut();
  showMessage(`Signed out: ${error}`);
}
// The player `p` signed in here: kept, and the lobby heard.
export function signIn(p) {
  ui.player = p; ui.lobby = null;
  store.set("player", p);
  $("playerToken").value = "";
  drawLobby();
  hearLobby(p);
  showTable();
  showHistory(p.name);
  askPassword(p);
}
// Whether the player `p` has set a password, said beside the box that
// sets one.
async function askPassword(p) {
  try {
    const r = await fetch("/api/me", { headers: bearer(p.token) });
    if (r.ok && ui.player === p) drawPassword((await r.json()).hasPassword);
  } catch (e) { /* said at the next sign-in */ }
}
function drawPassword(set) {
  $("setPassword").textContent = set ? "Change your password" : "Set a password";
  $("passwordWords").textContent = set ? "set: with your name and it you take your account back, a token lost"
    : "to take your account back if your token is lost";
}
$("setPassword").onclick = async () => {
  const j = await ratedPost("/api/password", { password: $("newPassword").value });
  if (!j) return;
  $("newPassword").value = "";
  drawPassword(true);
  showMessage("Password set: with your name and it, you take your account back from any browser if your token is lost.");
};
// A lost token: the player's name and password make a new one, shown
// once as a new player's is.
$("recover").onclick = async () => {
  try {
    const body = { name: $("recoverName").value, password: $("recoverPassword").value };
    const r = await fetch("/api/recover", { method: "POST", body: JSON.stringify(body) });
    const j = await r.json();
    if (!r.ok) { showMessage(j.error); return; }
    closeNote();
    $("recoverName").value = ""; $("recoverPassword").value = "";
    $("tokenText").textContent = j.token;
    $("tokenBox").hidden = false;
    signIn({ name: j.name, token: j.token });
  } catch (e) { setConn("lost connection to the server"); }
};
$("recoverPassword").addEventListener("keydown", (evt) => { if (evt.key === "Enter") $("recover").click(); });
// Nobody signed in here any more.
function signOut() {
  ui.player = null; ui.lobby = null;
  store.set("player", null);
  if (ui.lobbyEvents) ui.lobbyEvents.abort();
  ui.lobbyEvents = null;
  drawLobby();
}
$("makePlayer").onclick = async () => {
  try {
    const r = await fetch("/api/players", { method: "POST", body: JSON.stringify({ name: $("playerName").value }) });
    const j = await r.json();
    if (!r.ok) { showMessage(j.error); return; }
    closeNote();
    $("tokenText").textContent = j.token;
    $("tokenBox").hidden = false;
    $("playerName").value = "";
    signIn({ name: j.name, token: j.token });
  } catch (e) { setConn("lost connection to the server"); }
};
$("signIn").onclick = async () => {
  const token = $("playerToken").value.trim();
  if (!/^[0-9a-f]{32}$/i.test(token)) { showMessage("a token is 32 digits and letters a to f"); return; }
  try {
    const r = await fetch("/api/me", { headers: bearer(token) });
    const j = await r.json();
    if (!r.ok) { showMessage(j.error); return; }
    closeNote();
    signIn({ name: j.name, token });
  } catch (e) { setConn("lost connection to the server"); }
};
$("playerToken").addEventListener("keydown", (evt) => { if (evt.key === "Enter") $("signIn").click(); });
$("copyToken").onclick = () => copy($("copyToken"), $("tokenText").textContent);
$("tokenKept").onclick = () => { $("tokenBox").hidden = true; $("tokenText").textContent = ""; };
$("signOut").onclick = async () => {
  const playing = playingRated();
  const words = playing ? "Sign out here? Your rated game goes on: sign in again with your token to play it."
    : "Sign out here? You sign in again with your token.";
  if (!await ask(words, "Sign out", "Stay")) return;
  signOut();
  // The game is the player's, not this browser's: the board leaves it.
  if (ui.S && ui.S.rated && !ui.S.watching) { ui.seat = null; leaveGame(); await openGame(); }
};
drawLobby();

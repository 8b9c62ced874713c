// The game as the page sees it: the person's side, whose turn it is,
// the position shown (the game's, or an earlier one while browsing), the
// puzzle on the board, and the person's record against each level.

import { $, render, store, ui } from "./state.js";
import { ask } from "./notices.js";

// The engine's side for the side a person plays.
export const ENGINE_FOR = { white: "black", black: "white", both: "none", watch: "both" };
export function engineSide(color) {
  if (color !== "random") return ENGINE_FOR[color];
  return Math.random() < 0.5 ? "white" : "black";
}
// The colour the person plays in this game: their seat's in a room, or
// the one the engine does not play.
export function personColor() {
  if (ui.S.watching) return null;
  if (ui.S.room) return ui.S.room.you;
  const e = ui.S.settings.engine;
  return e === "white" ? "black" : e === "black" ? "white" : null;
}
// A level by the name its menu gives it.
export function levelName(level) {
  const names = { easy: "Easy", medium: "Medium", hard: "Hard", full: "Full strength" };
  return names[level] || `Skill Level ${level}`;
}

// Whether the game on the board is played by correspondence: whole days
// a move (its board is left and come back to at will).
export const byCorrespondence = () => !!ui.S && !!ui.S.clock && ui.S.clock.correspondence;
// Whether this browser's player plays a rated game at a sitting on the
// board now.
export const playingRated = () => !!ui.S && !!ui.S.rated && !ui.S.outcome && !ui.S.watching && !byCorrespondence();
// Whether the game is a room's whose second seat is empty.
export const friendAwaited = () => !!ui.S.room && ui.S.room.opponent === "waiting";
// Whether the board takes a move from the person now.
export function humanTurn() {
  if (!ui.S || ui.S.watching || ui.S.outcome || ui.viewPly !== null || ui.moving || ui.offline || performance.now() < ui.replySeenAt) return false;
  if (ui.S.room) return ui.S.turn === ui.S.room.you && !friendAwaited();
  const side = ui.S.settings.engine;
  const engineMoves = side === "both" || side === ui.S.turn;
  return !engineMoves || !!ui.S.engine.failure;
}
// The position shown (its board, position string, side to move and
// stones in hand and on the board): an earlier one while browsing, else
// the game's, with the stone of a mill-closing move already moved while
// its removal is picked.
export function shown() {
  if (ui.viewPly !== null) return ui.viewPly === 0 ? ui.S.start : ui.S.history[ui.viewPly - 1];
  if (!ui.pending) return ui.S;
  const { from, to } = ui.pending[0];
  const board = { ...ui.S.board };
  if (from) delete board[from];
  board[to] = ui.S.turn;
  const placed = from ? 0 : 1;
  const inHand = { ...ui.S.inHand, [ui.S.turn]: ui.S.inHand[ui.S.turn] - placed };
  const onBoard = { ...ui.S.onBoard, [ui.S.turn]: ui.S.onBoard[ui.S.turn] + placed };
  return { ...ui.S, board, inHand, onBoard };
}
// The last move of the position shown.
export function shownLast() {
  const ply = ui.viewPly === null ? ui.S.history.length : ui.viewPly;
  return ply > 0 ? ui.S.history[ply - 1].move : null;
}
// The ply shown: the game's last unless an earlier one is browsed.
export const shownPly = () => (ui.viewPly === null ? ui.S.history.length : ui.viewPly);
// Stepping through the moves (a record opened, or the game so far).
export function step(to) {
  if (!ui.S) return;
  const n = ui.S.history.length;
  const ply = Math.max(0, Math.min(n, to));
  ui.viewPly = ply === n ? null : ply;
  ui.sel = null; ui.pending = null;
  render();
}

// The record's number of the move at `ply` (from 1), and whether Black
// makes it.
export function numberOf(ply) {
  const half = ply - 1 + (ui.S.start.turn === "black" ? 1 : 0);
  return [ui.S.start.fullmove + Math.floor(half / 2), half % 2 === 1];
}
// The move at `ply` as records number it: "12." or "12…".
export function moveNumber(ply) {
  const [n, black] = numberOf(ply);
  return black ? `${n}…` : `${n}.`;
}

// Whether the game on the board is the puzzle set up (its moves taken
// back or not).
export const puzzleOn = () => !!ui.puzzle && ui.S.id === ui.puzzle.id && ui.S.start.fen === ui.puzzle.fen && ui.S.setUp;
// Whether a puzzle waits for its answer.
export const puzzleAsked = () => puzzleOn() && ui.S.history.length === 0;
// The game and its length on the board: a result closed is closed for
// that game as it stands.
export const gameShown = () => `${ui.S.id}/${ui.S.history.length}`;

// The person's wins, draws and losses against each level.
export function countResult() {
  const me = personColor();
  // A position set up, or a game with moves taken back in training, is
  // no game against the level: it is not counted (a training game over
  // is settled uncounted, so that switching training off after it does
  // not count it).
  if (!ui.S.outcome || me === null || ui.S.room || ui.S.rated || ui.S.setUp) return;
  count(ui.S.settings.training ? null : ui.S.winner === null ? "draw" : ui.S.winner === me ? "win" : "loss");
}
// Counts `result` ("win", "draw" or "loss"; null: none) for the game on
// the board at its level, once.
function count(result) {
  // Each game is a line of its own, however like another it went.
  const key = `${ui.S.id}/${ui.S.line}`;
  if (store.get("counted", null) === key) return;
  store.set("counted", key);
  if (result === null) return;
  const record = store.get("record", {});
  const r = record[ui.S.settings.level] || { win: 0, draw: 0, loss: 0 };
  r[result] += 1;
  record[ui.S.settings.level] = r;
  store.set("record", record);
}
// Whether the game on the board counts in the record and the person has
// moved in it: leaving it then is losing it.
export function personMoved() {
  const me = personColor();
  if (!ui.S || ui.S.outcome || ui.S.room || ui.S.rated || ui.S.setUp || ui.S.settings.training || me === null) return false;
  const other = ui.S.start.turn === "white" ? "black" : "white";
  return ui.S.history.some((_, ply) => (ply % 2 === 0 ? ui.S.start.turn : other) === me);
}
// Asks before a game that counts is left, and counts it as the loss it
// is (as a resignation would); whether to go on.
export async function forfeit(question, yes) {
  if (!personMoved()) return true;
  if (!await ask(`${question} The game in progress counts as a loss.`, yes, "Play on")) return false;
  count("loss");
  return true;
}
// The record against the game's level, beside the controls.
export function drawRecord() {
  const r = store.get("record", {})[ui.S.settings.level] || { win: 0, draw: 0, loss: 0 };
  const n = (k, word) => `${r[k]} ${word}${r[k] === 1 ? "" : "s"}`;
  $("record").textContent = `Against ${levelName(ui.S.settings.level)}: ${n("win", "win")}, ${n("draw", "draw")}, ${r.loss} ${r.loss === 1 ? "loss" : "losses"}`;
}

// A rating in whole points.
export const rounded = (x) => String(Math.round(x));
// A provisional rating, whose deviation is still too wide to rank by, is marked "?".
export const ratingWords = (p) => `${rounded(p.rating)}${p.provisional ? "?" : ""}`;

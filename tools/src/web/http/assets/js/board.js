// The board drawn: its lines, stones and marks, the values on it, the
// move just made arriving (and the wait until it is seen), and the sounds
// of the moves.

import { $, prefs, render, SVG, ui } from "./state.js";
import { friendAwaited, humanTurn, personColor, puzzleOn, shown, shownLast } from "./game.js";
import { shortValue, valueRank, valuesShown } from "./values.js";

// The board is turned round when the person plays Black.
// A puzzle is seen from its side to move's side.
export const turned = () => ui.flipped !== (ui.S !== null && (personColor() || (puzzleOn() && ui.S.start.turn)) === "black");
// A point's place on the board, as drawn.
export function xy(p) {
  let f = p.charCodeAt(0) - 97, r = Number(p.slice(1)) - 1;
  if (turned()) { f = 6 - f; r = 6 - r; }
  return [50 + f * 100, 650 - r * 100];
}
// An SVG element `name` with `attrs`, added to `parent` if given.
export function el(name, attrs, parent) {
  const e = document.createElementNS(SVG, name);
  for (const k in attrs) e.setAttribute(k, attrs[k]);
  if (parent) parent.appendChild(e);
  return e;
}
// The board of the position shown, with the marks of the move to make
// and of the last one; over all, the points a click lands on.
export function drawBoard() {
  const svg = $("board");
  svg.replaceChildren();
  // A margin for the coordinates, clear of the stones on the edge.
  svg.setAttribute("viewBox", prefs.coords ? "-30 -30 760 760" : "0 0 700 700");
  for (const [a, b] of ui.S.lines) {
    const [x1, y1] = xy(a), [x2, y2] = xy(b);
    el("line", { x1, y1, x2, y2 }, svg);
  }
  const board = shown().board;
  const last = shownLast();
  drawMills(svg, board, last);
  if (prefs.coords) drawCoordinates(svg);
  const legal = humanTurn() ? ui.S.legal : [];
  const targets = new Set(legal.filter((m) => (m.from || null) === ui.sel).map((m) => m.to));
  // Moving, nothing picked up: the stones that can move.
  const movable = new Set(ui.sel === null && !ui.pending ? legal.filter((m) => m.from).map((m) => m.from) : []);
  const removable = new Set(ui.pending ? ui.pending.map((m) => m.remove) : []);
  for (const p of ui.S.points) {
    const [x, y] = xy(p);
    el("circle", { cx: x, cy: y, r: 9, class: "point" }, svg);
    if (board[p]) el("circle", { cx: x, cy: y, r: 30, class: "stone " + board[p], "data-point": p }, svg);
    if (last && last.to === p) el("circle", { cx: x, cy: y, r: 37, class: "last" }, svg);
    if (last && last.from === p) el("circle", { cx: x, cy: y, r: 8, class: "lastfrom" }, svg);
    if (last && last.remove === p) {
      el("line", { x1: x - 16, y1: y - 16, x2: x + 16, y2: y + 16, class: "taken" }, svg);
      el("line", { x1: x - 16, y1: y + 16, x2: x + 16, y2: y - 16, class: "taken" }, svg);
    }
    // Over the last move's marks, which may share its point.
    if (!board[p] && targets.has(p) && !ui.pending) el("circle", { cx: x, cy: y, r: 14, class: "target" }, svg);
    if (movable.has(p)) el("circle", { cx: x, cy: y, r: 34, class: "movable" }, svg);
    if (ui.sel === p || (ui.pending && ui.pending[0].to === p)) el("circle", { cx: x, cy: y, r: 36, class: "sel" }, svg);
    if (removable.has(p)) el("circle", { cx: x, cy: y, r: 36, class: "removable" }, svg);
    if (ui.S.hint && ui.viewPly === null && (ui.S.hint.to === p || ui.S.hint.from === p)) el("circle", { cx: x, cy: y, r: 42, class: "hintmark" }, svg);
    if (ui.S.hint && ui.viewPly === null && ui.S.hint.remove === p) el("circle", { cx: x, cy: y, r: 42, class: "hintremove" }, svg);
  }
  drawExactValues(svg);
  if (ui.arriving) animate(svg, ui.arriving);
  ui.arriving = null;
  for (const p of ui.S.points) {
    const [x, y] = xy(p);
    el("circle", { cx: x, cy: y, r: 46, class: "hit", "data-point": p }, svg);
  }
}

// The mills just closed: by the last move shown, or by the stone put
// down while its removal is picked.
function drawMills(svg, board, last) {
  const to = ui.pending ? ui.pending[0].to : last && last.remove ? last.to : null;
  if (!to || !board[to]) return;
  for (const mill of ui.S.mills) {
    if (!mill.includes(to) || !mill.every((p) => board[p] === board[to])) continue;
    // Its two ends: the points farthest apart.
    let ends = [mill[0], mill[1]], far = -1;
    for (const a of mill) for (const b of mill) {
      const [ax, ay] = xy(a), [bx, by] = xy(b), d = (ax - bx) ** 2 + (ay - by) ** 2;
      if (d > far) { far = d; ends = [a, b]; }
    }
    const [x1, y1] = xy(ends[0]), [x2, y2] = xy(ends[1]);
    el("line", { x1, y1, x2, y2, class: "millline" }, svg);
  }
}

// The files' letters along the bottom and the ranks' numbers along the
// left side, turned with the board.
function drawCoordinates(svg) {
  for (let i = 0; i < 7; i++) {
    const file = String.fromCharCode(97 + i), rank = String(i + 1);
    const x = 50 + (turned() ? 6 - i : i) * 100, y = 650 - (turned() ? 6 - i : i) * 100;
    el("text", { x, y: 724, class: "coord" }, svg).textContent = file;
    el("text", { x: -10, y: y + 8, class: "coord" }, svg).textContent = rank;
  }
}

// The other side's move is answered only once it is on the board and has
// been seen: a tap sooner was aimed at the board before it. Its glide
// lasts as long as .stone.arriving's (a removal's, .leaving's); without
// one, a glance.
const GLIDE_MS = 250, REMOVAL_MS = 350, GLANCE_MS = 150;
const ARRIVING_WORDS = "the reply is still arriving: play once it is on the board";
export function replyShown(move) {
  const glide = !prefs.motion || matchMedia("(prefers-reduced-motion: reduce)").matches ? 0 : move.remove ? REMOVAL_MS : GLIDE_MS;
  const wait = Math.max(glide, GLANCE_MS);
  ui.replySeenAt = performance.now() + wait;
  setTimeout(() => {
    if (ui.note === ARRIVING_WORDS) ui.note = null;
    if (ui.S) render();
  }, wait + 1);
}
// Why the board takes no move from the person now, where it is theirs to
// play before long; null otherwise.
export function waitWords() {
  const mine = ui.S && personColor();
  if (!mine || ui.S.outcome || ui.viewPly !== null || ui.moving || ui.offline || friendAwaited()) return null;
  if (ui.S.turn !== mine) return ui.S.room ? "your opponent is to move: your move comes after theirs" : "the engine is thinking: your move comes after its reply";
  if (performance.now() < ui.replySeenAt) return ARRIVING_WORDS;
  return null;
}
// The move just made, moving: its stone comes from where it was (from the
// hand's side of the board for a placement), a removed stone fades.
function animate(svg, { move, color }) {
  if (!prefs.motion) return;
  const stone = svg.querySelector(`circle.stone[data-point="${move.to}"]`);
  if (stone) {
    const [tx, ty] = xy(move.to);
    const bottom = turned() ? "black" : "white";
    const [fx, fy] = move.from ? xy(move.from) : [tx, color === bottom ? 760 : -60];
    stone.style.transform = `translate(${fx - tx}px, ${fy - ty}px)`;
    stone.getBoundingClientRect();
    stone.classList.add("arriving");
    stone.style.transform = "";
  }
  if (move.remove) {
    const [x, y] = xy(move.remove);
    const other = color === "white" ? "black" : "white";
    el("circle", { cx: x, cy: y, r: 30, class: `leaving ${other}` }, svg);
  }
}

// Sounds made in the page: a knock for a stone put down, a softer one for
// a slide, a clack for a removal, a chime at the end.
function tone(freq, seconds, type, volume, delay) {
  if (!ui.audio) return;
  const t = ui.audio.currentTime + (delay || 0);
  const osc = ui.audio.createOscillator(), gain = ui.audio.createGain();
  osc.type = type; osc.frequency.value = freq;
  gain.gain.setValueAtTime(volume, t);
  gain.gain.exponentialRampToValueAtTime(0.001, t + seconds);
  osc.connect(gain).connect(ui.audio.destination);
  osc.start(t); osc.stop(t + seconds);
}
export function sound(move, ended) {
  if (!prefs.sound || !ui.audio) return;
  if (move) tone(move.from ? 330 : 520, 0.12, "triangle", 0.3);
  if (move && move.remove) tone(180, 0.18, "square", 0.12, 0.12);
  if (ended) { tone(660, 0.3, "sine", 0.2, 0.25); tone(880, 0.45, "sine", 0.2, 0.45); }
}
document.addEventListener("pointerdown", () => {
  if (ui.audio || !window.AudioContext) return;
  try { ui.audio = new AudioContext(); } catch (e) { ui.audio = null; }
}, { capture: true });

// With databases, each legal move's exact value: on its target for the
// stone picked up (or for placing), else on each stone its best move's
// (the best of the moves that share a point).
// While a removal is picked, on each stone that may go. Not while a
// puzzle waits for its answer: they would give it away.
function drawExactValues(svg) {
  if (!valuesShown()) return;
  const moving = ui.sel === null && !ui.pending && ui.S.legal.some((m) => m.from);
  const best = {};
  for (const m of ui.S.legal) {
    const picked = ui.pending ? ui.pending.some((c) => c.text === m.text) : moving || (m.from || null) === ui.sel;
    const v = picked && ui.S.exact.moves[m.text];
    if (!v) continue;
    const at = ui.pending ? m.remove : moving ? m.from : m.to;
    if (!(at in best) || valueRank(v) > valueRank(best[at])) best[at] = v;
  }
  for (const p in best) {
    const [x, y] = xy(p);
    // Up and to the right, clear of the lines; on the right edge
    // leftwards, and below the middle line there, clear of the label of
    // the point beside it.
    const right = x > 600, beside = right && y === 350;
    el("text", { x: right ? x - 18 : x + 18, y: beside ? y + 40 : y - 18, "data-point": p, class: "dbv " + best[p].outcome + (right ? " left" : "") }, svg)
      .textContent = shortValue(best[p]);
  }
}
// A game set up or opened is shown: the board comes into view.
export const showBoard = () => $("board").scrollIntoView({ block: "nearest" });

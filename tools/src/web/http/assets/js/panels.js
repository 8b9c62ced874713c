// The page drawn anew from the state: the board, then what is beside it
// (the hands and clocks, the status, the result, the controls as the game
// has them, the engine's line, the moves).

import { $, capitalised, prefs, render, SVG, trainMarks, ui } from "./state.js";
import { drawMessage } from "./notices.js";
import { drawRecord, ENGINE_FOR, friendAwaited, gameShown, numberOf, personColor, puzzleAsked, puzzleOn, rounded, shown } from "./game.js";
import { choose, clockChoice, clockText, clockWords, drawChallengeRules } from "./choices.js";
import { dbWords, drawEval, drawValueList } from "./values.js";
import { drawBoard, el, turned } from "./board.js";
import { drawReview } from "./review.js";
import { drawPuzzleScore, drawVerdict } from "./learn.js";
import { drawRoom } from "./room.js";

// The whole page, from the state (set as the render of state.js).
export function drawPage() {
  drawBoard();
  drawHands();
  drawPanels();
  drawEval();
  drawReview();
  drawVerdict();
}

// Each side's stones in hand, above and below the board as it is turned.
function drawHands() {
  const hand = (color) => {
    const p = shown();
    const n = p.inHand[color], onBoard = p.onBoard[color];
    const box = document.createElement("div");
    box.className = "hand";
    const label = document.createElement("span");
    label.textContent = `${color}: ${n} in hand, ${onBoard} on the board`;
    box.appendChild(label);
    for (let i = 0; i < n; i++) {
      const s = document.createElementNS(SVG, "svg");
      s.setAttribute("viewBox", "0 0 20 20");
      el("circle", { cx: 10, cy: 10, r: 8, class: "stone " + color }, s);
      box.appendChild(s);
    }
    return box;
  };
  const [top, bottom] = turned() ? ["white", "black"] : ["black", "white"];
  $("handTop").replaceChildren(...hand(top).childNodes);
  $("handBottom").replaceChildren(...hand(bottom).childNodes);
  $("clockTop").dataset.color = top;
  $("clockBottom").dataset.color = bottom;
  drawClocks();
}

// Each side's time, counted down here between the server's states.
function drawClocks() {
  for (const id of ["clockTop", "clockBottom"]) {
    const box = $(id), c = ui.S && ui.S.clock, color = box.dataset.color;
    if (!c) { box.textContent = ""; continue; }
    const running = c.running === color;
    const ms = Math.max(0, c.left[color] - (running ? Date.now() - ui.received : 0));
    const sec = ms / 1000;
    box.textContent = clockText(sec);
    box.className = "clock" + (running ? " running" : "") + (running && sec < 10 ? " low" : "");
  }
}
setInterval(() => { if (ui.S && ui.S.clock && ui.S.clock.running) drawClocks(); }, 100);

// Whose turn it is, in words, from the person's side.
function statusWords() {
  if (ui.viewPly !== null) {
    const where = ui.viewPly === 0 ? "The start" : `After ${ui.S.history[ui.viewPly - 1].move.text}`;
    return `${where} (${ui.viewPly} of ${ui.S.history.length} moves): ${shown().turn} to move`;
  }
  if (ui.S.outcome) return "Game over: " + ui.S.outcome;
  if (ui.offline) return "Connection lost: reconnecting…";
  if (friendAwaited()) return "Waiting for your friend to join";
  if (ui.S.engine.thinking === "move") return "The engine is thinking";
  if (ui.S.engine.thinking === "draw") return "The engine weighs your offer of a draw";
  if (ui.S.valuesOff && !ui.S.room && [ui.S.turn, "both"].includes(ui.S.settings.engine)) return "The engine waits while a rated game stands on a position of this game";
  if (ui.pending) return "A mill: pick a stone to remove";
  if (puzzleOn() && ui.S.history.length === 0) return `Puzzle: ${ui.S.turn} to move, and one move alone keeps the ${ui.puzzle.goal}`;
  if (ui.S.room && ui.S.drawOffer === ui.S.room.you) return "You offer a draw: waiting for the answer";
  const me = personColor();
  // Fair play's reason stands where the person looks, not only in the
  // engine's panel further down.
  if (me === ui.S.turn && ui.S.valuesOff && !ui.S.room) return "Your move · no values or hints: a rated game stands on a position of this game";
  if (me === ui.S.turn) return "Your move";
  if (ui.S.room) return ui.S.rated ? "Your opponent is thinking" : "Your friend is thinking";
  const toMove = `${capitalised(ui.S.turn)} to move`;
  return ui.S.valuesOff ? `${toMove} · no values or hints: a rated game stands on a position of this game` : toMove;
}

// The end of a game, on the board: who won, and why; closed (to see the
// board) until the next game.
function drawResult() {
  const box = $("result");
  box.hidden = !ui.S.outcome || ui.viewPly !== null || ui.resultClosed === gameShown();
  if (box.hidden) return;
  const me = personColor();
  const head = ui.S.winner === null ? "A draw" : me === null ? `${capitalised(ui.S.winner)} wins`
    : ui.S.winner === me ? "You won" : "You lost";
  $("resultHead").textContent = head;
  const mine = ui.S.rated && me && ui.S.rated[me];
  const theirs = mine && ui.S.rated[me === "white" ? "black" : "white"];
  const rating = !mine || ui.S.rated.moved === null ? ""
    : ui.S.rated.moved ? `. Your rating: ${rounded(mine.rating)} → ${rounded(mine.after)}; ${theirs.name}'s: ${rounded(theirs.rating)} → ${rounded(theirs.after)}.`
    : ". Unrated: it was over before the tenth move of each side.";
  $("resultWhy").textContent = ui.S.outcome + rating;
  $("again").textContent = ui.S.rated ? "Back to your own board" : ui.S.room ? "Next game (colours change)" : "Play again";
  drawRematch(mine && ui.player && mine.name === ui.player.name);
}
// The rematch of a rated game over, for one of its players signed in
// here: offered, or the opponent's offer taken or declined, as the lobby
// tells (its result kept first: until then the players are engaged).
function drawRematch(player) {
  const offers = player && ui.lobby ? ui.lobby.challenges.filter((c) => c.rematchOf === ui.S.id) : [];
  const theirs = offers.find((c) => !c.mine), ours = offers.find((c) => c.mine);
  const button = $("rematch");
  button.hidden = !player;
  button.disabled = (!!ours && !theirs) || !ui.lobby || !!ui.lobby.game || ui.S.rated.moved === null;
  button.textContent = theirs ? `Accept ${theirs.name}'s rematch` : ours ? "Rematch offered: waiting for the answer" : "Rematch (colours swapped)";
  $("rematchDecline").hidden = !theirs;
}
$("resultClose").onclick = () => { ui.resultClosed = gameShown(); render(); };

// The rules of the game on the board, in the controls and the help.
function drawRules() {
  const n = ui.S.settings.nMoveRule;
  choose($("nmoverule"), String(n), (v) => `${v} moves each`);
  $("flying").checked = ui.S.settings.flying;
  $("fullboard").value = ui.S.settings.fullBoard;
  $("fullBoardLabel").hidden = !ui.S.canFillTheBoard;
  $("helpNMove").textContent = n === 0 ? " (in this game moves without a removal have no limit)" : `, or after ${n} moves each without a removal`;
  $("helpFlying").innerHTML = ui.S.settings.flying
    ? "<b>Flying.</b> With only three stones left, you may move a stone to any empty point."
    : "<b>No flying</b> in this game: with three stones left you still slide along the lines.";
}

// Everything beside the board but the hands, the evaluation, the review
// and the verdict.
export function drawPanels() {
  const waiting = !ui.S.outcome && ui.viewPly === null && !ui.offline && (ui.S.engine.thinking === "move" || (ui.S.room && ui.S.turn !== ui.S.room.you));
  $("status").textContent = statusWords();
  $("status").className = waiting ? "thinking" : "";
  drawRoom();
  drawResult();
  drawRecord();
  const declined = ui.S.drawDeclined && ui.S.drawDeclined === personColor()
    ? (ui.S.rated && ui.S.room ? "Your opponent declines the draw: play on" : ui.S.room ? "Your friend declines the draw: play on" : ui.S.inTheOpening ? "The engine declines a draw in the opening: it plays on" : "The engine declines the draw: it plays on") : "";
  drawMessage(ui.note || (ui.S.engine.failure ? "Engine stopped: " + ui.S.engine.failure : declined));
  $("restart").style.display = ui.S.engine.failure ? "" : "none";
  $("viewing").style.display = ui.viewPly === null ? "none" : "block";
  $("variant").value = ui.S.settings.variant;
  drawRules();
  drawChallengeRules();
  drawValueList();
  $("trainingOn").checked = ui.S.settings.training;
  drawPuzzleScore();
  $("color").value = prefs.color === "random" && personColor() !== null ? "random"
    : Object.keys(ENGINE_FOR).find((c) => ENGINE_FOR[c] === ui.S.settings.engine);
  $("level").value = ui.S.settings.level;
  if ([...$("movetime").options].some((o) => o.value == ui.S.settings.movetime)) $("movetime").value = ui.S.settings.movetime;
  choose($("clock"), clockChoice(ui.S.settings.clock), clockWords);
  $("undo").disabled = !ui.S.canUndo;
  // The levels below full strength search to a set depth, not for a time.
  $("movetime").disabled = ui.S.settings.weakened;
  $("movetime").title = $("movetime").disabled ? "only at full strength: the other levels search to a set depth" : "";
  $("redo").disabled = !ui.S.canRedo;
  $("hint").disabled = !!ui.S.engine.thinking || !!ui.S.outcome || puzzleAsked() || ui.S.valuesOff;
  const playing = !ui.S.outcome && ui.S.settings.engine !== "both" && !friendAwaited();
  $("resign").disabled = !playing;
  // An offer to the engine is made on one's move, the engine free.
  $("offerDraw").disabled = !playing || !!ui.S.drawOffer || (!ui.S.room && !!ui.S.engine.thinking);
  $("new").textContent = ui.S.rated ? "Back to your own board" : ui.S.room ? "Next game (colours change)" : "New game";
  // A room's next game is there once this one is over; a rated game is
  // one game, but one by correspondence waits in the lobby's list for its
  // player, who leaves its board meanwhile.
  const waits = !!ui.S.rated && !!ui.S.clock && !!ui.S.clock.correspondence;
  $("new").hidden = (!!ui.S.room || !!ui.S.rated) && !ui.S.outcome && !ui.S.watching && !waits;
  const e = ui.S.engine;
  // A game watched has no room: its settings say whether the engine plays.
  const people = !!ui.S.room || (!!ui.S.watching && ui.S.settings.engine === "none");
  const parts = [people ? "no engine in a game between two people" : e.name || (e.failure ? "the engine" : "starting the engine…")];
  if (ui.S.rated && !people) parts.push("its plans are its own in a rated game");
  const doing = { hint: "looking for a hint", draw: "weighing a draw", review: "reviewing" };
  if (e.thinking) parts.push(doing[e.thinking] || "thinking");
  // Once the game is over its last search is not news.
  // Nor is it while the engine reviews the game: it judges other positions.
  if (!ui.S.outcome && e.thinking !== "review") {
    if (e.depth !== null) parts.push(`depth ${e.depth}`);
    if (e.score !== null) parts.push(e.score);
    if (e.pv) parts.push(`pv ${e.pv}`);
  }
  if (ui.S.hint) parts.push(`hint ${ui.S.hint.text}`);
  $("engineinfo").textContent = parts.join(" · ");
  $("exact").textContent = ui.S.watching && !ui.S.outcome ? "No values while the game is played: its players play on their own."
    : ui.S.rated && !ui.S.outcome ? "Values, hints and reviews are off while a rated game is played."
    : ui.S.room || ui.S.rated ? ""
    : ui.S.valuesOff ? "Values, hints, reviews and the engine's moves wait: a rated game in progress on this server stands on a position of this game (fair play)."
    : ui.S.exact ? `Databases: ${ui.S.turn} to move, ${dbWords(ui.S.exact.value)}`
    : !ui.S.databases ? "No endgame databases here: the values are the engine's judgement (see the help)."
    : !ui.S.databasesHoldRules ? "The endgame databases hold no position of these rules: the values are the engine's judgement." : "";
  $("fen").value = shown().fen;
  const moves = $("moves");
  moves.replaceChildren();
  const cell = (className, text) => {
    const c = document.createElement("span");
    c.className = className; c.textContent = text;
    moves.appendChild(c);
    moves.appendChild(document.createTextNode(" "));
  };
  // Rows of a number, White's move and Black's, numbered on from the
  // start position (a set-up with Black to move begins "3. … a7").
  ui.S.history.forEach((h, i) => {
    const [n, black] = numberOf(i + 1);
    if (!black || i === 0) cell("num", `${n}.`);
    if (black && i === 0) cell("gap", "…");
    const s = document.createElement("span");
    const mark = ui.S.review && ui.S.review.marks.find((m) => m.ply === i + 1);
    const trained = trainMarks[`${ui.S.id}/${i + 1}`];
    const drill = !mark && trained && trained.move === h.move.text ? trained.mark : "";
    s.textContent = h.move.text + (mark ? mark.sign : drill);
    s.dataset.ply = i + 1;
    s.className = (ui.viewPly === i + 1 ? "on" : "") + (mark ? " blunder" : drill ? " trained" : "");
    moves.appendChild(s);
    moves.appendChild(document.createTextNode(" "));
  });
  const on = moves.querySelector("span.on");
  if (on) on.scrollIntoView({ block: "nearest" });
  else if (ui.viewPly === null) moves.scrollTop = moves.scrollHeight;
}


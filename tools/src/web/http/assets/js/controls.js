// The controls beside the board: the game's choices (a new one, the
// sides, the level, the rules, the clock), its buttons, the page's own
// settings and help, and the position and record set up, copied, saved
// and opened.

import { $, prefs, render, savePrefs, store, ui } from "./state.js";
import { ask, copy, setConn, showMessage } from "./notices.js";
import { drawRecord, ENGINE_FOR, engineSide, forfeit, levelName, personMoved, shown } from "./game.js";
import { settings_json } from "./choices.js";
import { showBoard } from "./board.js";
import { api, post } from "./api.js";
import { backToOwnBoard } from "./room.js";
import { drawPanels } from "./panels.js";

// The Skill Levels of the level's menu.
for (let s = 0; s <= 20; s++) {
  const o = document.createElement("option");
  o.value = String(s); o.textContent = s === 20 ? "20 (full)" : String(s);
  $("skills").appendChild(o);
}

// A new game under the page's choices, colours drawn again if so chosen.
function newGame() {
  ui.viewPly = null; ui.sel = null; ui.pending = null;
  post("/api/new", settings_json(engineSide(prefs.color)));
}
$("new").onclick = async () => {
  if (ui.S.rated) backToOwnBoard();
  else if (ui.S.room) post("/api/new");
  else if (await forfeit("Start a new game?", "New game")) newGame();
};
$("again").onclick = () => $("new").click();
$("color").onchange = async () => {
  const chosen = $("color").value;
  if (!await forfeit("Change sides?", "Change")) { drawPanels(); return; }
  prefs.color = chosen; savePrefs();
  // A game over has nothing to go on with: the next begins.
  if (ui.S.outcome) newGame();
  else if (prefs.color === "random") showMessage("colours are drawn for each new game");
  else post("/api/settings", JSON.stringify({ engine: ENGINE_FOR[prefs.color] }));
};
for (const id of ["level", "movetime"]) {
  $(id).onchange = () => {
    prefs[id] = $(id).value; savePrefs();
    // A game counts at the level it is played at: a new level plays the
    // next game, once the person has moved in this one.
    if (id === "level" && personMoved()) {
      showMessage(`${levelName(prefs.level)} plays your next game; this one goes on at ${levelName(ui.S.settings.level)}`);
      return;
    }
    post("/api/settings", JSON.stringify({ [id]: id === "movetime" ? Number(prefs[id]) : prefs[id] }));
  };
}
// A choice that needs a new game asks before the game in progress goes.
async function newGameFor(id, question) {
  const value = $(id).type === "checkbox" ? $(id).checked : $(id).value;
  drawPanels();
  if (personMoved()) {
    if (!await forfeit(question(value), "New game")) return;
  } else if (ui.S.history.length > 0 && !ui.S.outcome) {
    if (!await ask(`${question(value)} The game in progress will be lost.`, "New game", "Keep this game")) return;
  }
  prefs[id] = value; savePrefs();
  newGame();
}
$("variant").onchange = () => newGameFor("variant", (v) => `Start a new game of ${v}?`);
$("clock").onchange = () => newGameFor("clock", () => "Start a new game with this clock?");
$("nmoverule").onchange = () => newGameFor("nmoverule", (n) => n === "0"
  ? "Start a new game with no limit on moves without a removal?" : `Start a new game drawn after ${n} moves each without a removal?`);
$("flying").onchange = () => newGameFor("flying", (on) => on ? "Start a new game with flying?" : "Start a new game without flying?");
$("fullboard").onchange = () => newGameFor("fullboard", (rule) => rule === "draw"
  ? "Start a new game where a full board draws?" : "Start a new game where a full board loses for White?");

// The game's buttons.
$("undo").onclick = () => { ui.viewPly = null; post("/api/undo"); };
$("redo").onclick = () => { ui.viewPly = null; post("/api/redo"); };
$("resign").onclick = async () => { if (await ask("Resign this game?", "Resign", "Play on")) post("/api/resign"); };
$("offerDraw").onclick = () => post("/api/draw", "offer");
$("hint").onclick = () => post("/api/hint");
$("restart").onclick = () => post("/api/restart");
$("flip").onclick = () => { ui.flipped = !ui.flipped; render(); };

// The page's own settings, kept here; training is the game's too.
for (const [id, key] of [["soundOn", "sound"], ["coordsOn", "coords"], ["motionOn", "motion"], ["valuesOn", "values"]]) {
  $(id).checked = !!prefs[key];
  $(id).onchange = () => { prefs[key] = $(id).checked; savePrefs(); render(); };
}
$("trainingOn").onchange = async () => {
  const on = $("trainingOn").checked;
  if (on && !await forfeit("Train in this game?", "Train")) { drawPanels(); return; }
  prefs.training = on; savePrefs();
  post("/api/settings", JSON.stringify({ training: on }));
};

// The rules and help.
$("helpBtn").onclick = () => { $("help").hidden = false; $("help").scrollTop = 0; };
$("helpClose").onclick = $("helpX").onclick = () => { $("help").hidden = true; };
$("help").addEventListener("click", (evt) => { if (evt.target === $("help")) $("help").hidden = true; });

// The record against this level, forgotten.
$("resetRecord").onclick = () => {
  const record = store.get("record", {});
  delete record[ui.S.settings.level];
  store.set("record", record);
  drawRecord();
};

// The position and the record: set up, copied, saved, opened.
$("setup").onclick = async () => {
  if (!await forfeit("Set this position up?", "Set up")) return;
  ui.viewPly = null; ui.sel = null; ui.pending = null;
  if (await post("/api/setup", $("paste").value)) { $("paste").value = ""; showBoard(); }
};
$("copyFen").onclick = () => copy($("copyFen"), shown().fen);
$("copyMoves").onclick = () => copy($("copyMoves"), ui.S.history.map((h) => h.move.text).join(" "));
$("save").onclick = async () => {
  try {
    const r = await fetch(api("/api/record"));
    const url = URL.createObjectURL(new Blob([await r.text()], { type: "text/plain" }));
    const a = document.createElement("a");
    a.href = url; a.download = "morris.pgn"; a.click();
    URL.revokeObjectURL(url);
  } catch (e) { setConn("lost connection to the server"); }
};
$("loadBtn").onclick = () => $("load").click();
$("load").onchange = async () => {
  const file = $("load").files[0];
  if (!file) return;
  if (!await forfeit("Open this record?", "Open")) { $("load").value = ""; return; }
  ui.viewPly = null;
  if (await post("/api/record", await file.text())) showBoard();
  $("load").value = "";
};

// The page's state, shared by its modules: what the server last said,
// what the person is doing on the board, and what this browser keeps.
// An ES module cannot assign another's bindings, so the state that
// changes is the one object `ui`, its fields assigned where they change.

export const $ = (id) => document.getElementById(id);
export const SVG = "http://www.w3.org/2000/svg";
// A player's name as the page shows it: a click opens the player's page
// (profile.js listens for it).
export function nameOf(name) {
  const span = document.createElement("span");
  span.className = "name"; span.dataset.name = name; span.textContent = name;
  return span;
}
// `word` with its first letter a capital: "white" as "White".
export const capitalised = (word) => word[0].toUpperCase() + word.slice(1);
// `li` (or any element) filled with `parts`: text, elements, and names
// given as `{ name }`, each shown by nameOf.
export function fillWith(el, parts) {
  el.replaceChildren(...parts.map((p) => (typeof p === "string" || p instanceof Node ? p : nameOf(p.name))));
  return el;
}

// What the browser keeps between visits: the player's preferences, their
// record against each level, and the game in progress.
export const store = {
  get(key, fallback) {
    try { const v = JSON.parse(localStorage.getItem("morris." + key)); return v === null ? fallback : v; }
    catch (e) { return fallback; }
  },
  set(key, value) {
    try { if (value === null) localStorage.removeItem("morris." + key); else localStorage.setItem("morris." + key, JSON.stringify(value)); }
    catch (e) { /* private browsing: nothing is kept */ }
  },
};
export const DEFAULT_PREFS = { color: "white", level: "easy", variant: "nine", nmoverule: "30", flying: true, fullboard: "draw", clock: "", movetime: 1000, sound: true, coords: true, motion: true, values: false, training: false, puzzleGrade: "1", ratedClock: "turn:60", ratedColor: "random", ratedRange: "" };
export const prefs = Object.assign({}, DEFAULT_PREFS, store.get("prefs", {}));
export const savePrefs = () => store.set("prefs", prefs);

export const ui = {
  S: null,             // the server's state
  sel: null,           // the point of the stone picked up
  pending: null,       // moves waiting for the stone to remove
  note: null,          // a word on the last click, shown at the foot of the screen
  replySeenAt: 0,      // when the other side's last move has been on the board long enough to be seen
  viewPly: null,       // the ply shown when browsing the moves
  flipped: false,      // turned by hand, on top of the turn for Black
  dragFrom: null,
  received: 0,         // when S arrived, for the clocks' countdown
  seat: null,          // this browser's seat token in a room
  gameEvents: null,    // aborts the stream of the game left
  moving: false,       // the answer to a move sent, awaited: the board waits
  offline: false,      // the server did not answer: the board waits for it
  closedMessage: null, // the message the person closed, not shown again
  verdict: null,       // the judgement of the person's last move, in training or a puzzle
  puzzles: null,       // every puzzle, once asked for
  puzzle: null,        // the puzzle set up on the board
  arriving: null,      // the move just made, to be drawn arriving (board.js)
  audio: null,         // the sounds' AudioContext, once the person has touched the page
  resultClosed: null,  // the game (and ply) whose result the person closed
  lastControl: null,   // the control a person used last
  // Rated games: this browser's player (its name and secret token, kept
  // here), the lobby heard by a stream of its own, the ratings and the
  // games played.
  player: store.get("player", null),
  lobby: null,         // the lobby as the server last told it
  lobbyEvents: null,   // aborts the lobby's stream
  lobbyRatings: null,  // the ratings the lobby last told, to see them move
  declinedTold: new Set(), // the player's challenges told as declined
  historyOf: null,     // whose games are shown
};
export const trainMarks = {}; // "game/ply": the move and its training mark (?, ??)

// What a module calls that a module above it provides, set once by
// main.js: so the imports go one way only, from main.js down to here.
export const hooks = {
  render: null,       // draws the page anew from the state (panels.js)
};
export const render = () => hooks.render();

export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

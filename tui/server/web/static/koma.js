// Koma's page script (ours; xterm.js and its driver come from textual-serve's package, loaded just before this).
// It points textual-serve's WebSocket at this page's own location (so it works behind HTTPS and a proxy), keeps a
// session token per tab (a reload finds the same game), turns on xterm.js's screen-reader mode, and says what
// happened when the connection ends.  On a phone it picks a font size that gives the terminal at least 44 columns
// (80 on a desktop), follows rotation and the on-screen keyboard, turns swipes into arrow keys and taps into clicks
// (each sent as the finger lifts), shows a bar of buttons (those the game says the screen can use, Enter and Space
// among them), brings up the on-screen keyboard when the game's focused widget takes text, sends text that a keyboard
// typed as keydown 229 then input (which xterm.js drops), and says the game's announcements in a live region.  On a
// desktop the terminal has the focus from the start.
"use strict";
(function () {
  const TOKEN = "koma-session";
  const RETRIES = "koma-retries";
  function newToken() {
    const bytes = new Uint8Array(18);
    crypto.getRandomValues(bytes);
    return btoa(String.fromCharCode(...bytes)).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
  }
  let token = sessionStorage.getItem(TOKEN);
  if (!token || !/^[A-Za-z0-9_-]{16,64}$/.test(token)) {
    token = newToken();
    sessionStorage.setItem(TOKEN, token);
  }
  const koma = (window.koma = { opened: 0, closes: [], terminal: null, socket: null });

  function status(text, button) {
    const box = document.getElementById("status");
    if (!box) return;
    box.hidden = !text;
    document.getElementById("status-text").textContent = text || "";
    const b = document.getElementById("status-button");
    b.hidden = !button;
    if (button) {
      b.textContent = button;
      b.onclick = () => location.reload();
    }
  }

  function socketUrl(query) {
    const url = new URL("ws", location.href);
    url.protocol = location.protocol === "https:" ? "wss:" : "ws:";
    const params = new URLSearchParams(query);
    params.set("session", token);
    url.search = params.toString();
    url.hash = "";
    return url.href;
  }

  function recentRetries() {
    const now = Date.now();
    const times = JSON.parse(sessionStorage.getItem(RETRIES) || "[]").filter((t) => now - t < 60000);
    return times;
  }

  function closed(event) {
    koma.closes.push({ code: event.code, reason: event.reason });
    if (event.code === 1000) {
      sessionStorage.removeItem(TOKEN); // the game is over: the next one is a new game
      status(event.reason || "The game has ended; it is saved.", "Play again");
    } else if (event.code === 1012) {
      sessionStorage.removeItem(TOKEN); // the server stopped the game (it is saved): the next visit resumes it
      status(event.reason || "The Koma server is restarting. Your game is saved: connect again to resume.", "Reconnect");
    } else if (event.code === 1008 || event.code === 1013) {
      status(event.reason || "The server turned the connection away.", "Try again");
    } else {
      const times = recentRetries();
      if (times.length < 5) {
        sessionStorage.setItem(RETRIES, JSON.stringify([...times, Date.now()]));
        status("The connection dropped. Reconnecting to your game…");
        setTimeout(() => location.reload(), 1000 + 1000 * times.length);
      } else {
        status("The connection dropped and could not be made again. Your game waits a minute for you.", "Reconnect");
      }
    }
  }

  const Native = window.WebSocket;
  class KomaSocket extends Native {
    constructor(url, protocols) {
      const given = String(url);
      const q = given.indexOf("?");
      super(socketUrl(q >= 0 ? given.slice(q + 1) : ""), protocols);
      koma.socket = this;
      this.addEventListener("open", () => {
        koma.opened += 1;
        refit(); // after textual-serve's own fit: the font size for this screen, then the size the game gets
        sessionStorage.removeItem(RETRIES);
        status("");
      });
      this.addEventListener("close", closed);
    }
  }
  window.WebSocket = KomaSocket;

  // textual-serve makes its xterm.js Terminal on window.onload and keeps it to itself: catch it as it is stored
  // (``this.terminal = new Terminal(...)``), before it opens, and turn on the screen-reader mode, so the screen's
  // text is in the page for assistive technology.
  Object.defineProperty(Object.prototype, "terminal", {
    configurable: true,
    set(value) {
      Object.defineProperty(this, "terminal", { value, writable: true, configurable: true, enumerable: true });
      if (value && value.options && typeof value.loadAddon === "function") {
        delete Object.prototype.terminal;
        value.options.screenReaderMode = true;
        koma.terminal = value;
        koma.client = this; // textual-serve's client: its fit() sizes the terminal to the page
        value.onRender(() => setTimeout(sharpen)); // after the frame, not inside it
        value.parser.registerOscHandler(ANNOUNCE_OSC, (text) => {
          announce(text);
          return true;
        });
        value.parser.registerOscHandler(BAR_OSC, (text) => {
          barState(text);
          return true;
        });
      }
    },
  });

  // --- small screens: a font size that gives the terminal enough columns, refitted on every change of size ---
  // A phone gets at least 44 columns (Koma's layouts fold below 60), anything wider 80, and 20 rows; never above
  // 16 px, never below 8.
  const PHONE_WIDTH = 700;
  const MAX_FONT = 16;
  const MIN_FONT = 8;
  const WANTED_ROWS = 20; // a phone held sideways: Koma's screens are made for 20 rows and more
  const LINE_HEIGHT = 1.2; // xterm.js's rows are about this many font sizes high
  const ANNOUNCE_OSC = 7757; // the game's one-line announcements (tui/widgets/touch.py)
  const BAR_OSC = 7758; // the touch bar's buttons and the keyboard the screen wants (tui/widgets/touch.py)

  function wantedColumns(width) {
    return width < PHONE_WIDTH ? 44 : 80;
  }

  function area() {
    const view = window.visualViewport;
    const bar = document.getElementById("touch-bar");
    const barHeight = bar && !bar.hidden ? bar.offsetHeight : 0;
    return {
      width: view ? view.width : window.innerWidth,
      height: (view ? view.height : window.innerHeight) - barHeight,
      top: view ? view.offsetTop : 0,
      left: view ? view.offsetLeft : 0,
    };
  }

  function charRatio() {
    const context = document.createElement("canvas").getContext("2d");
    context.font = "100px 'Roboto Mono', monospace";
    return context.measureText("M").width / 100 || 0.6;
  }

  function guessFontSize(width, height) {
    const byWidth = (2 * width) / (wantedColumns(width) * charRatio());
    const byHeight = (2 * height) / (WANTED_ROWS * LINE_HEIGHT);
    return Math.max(MIN_FONT, Math.min(MAX_FONT, Math.floor(Math.min(byWidth, byHeight)) / 2));
  }

  function placeTerminal() {
    // the on-screen keyboard shrinks the visual viewport, not the layout one: the terminal follows what is seen
    const box = document.getElementById("terminal");
    const seen = area();
    box.style.top = seen.top + "px";
    box.style.left = seen.left + "px";
    box.style.width = seen.width + "px";
    box.style.height = Math.max(0, seen.height) + "px";
    const bar = document.getElementById("touch-bar");
    if (bar && !bar.hidden) {
      bar.style.top = seen.top + seen.height + "px";
      bar.style.bottom = "auto";
    }
    return seen;
  }

  function fit() {
    const seen = placeTerminal();
    const terminal = koma.terminal;
    if (!terminal || !koma.client) return;
    const wanted = wantedColumns(seen.width);
    let size = guessFontSize(seen.width, seen.height);
    terminal.options.fontSize = size;
    koma.client.fit();
    while ((terminal.cols < wanted || terminal.rows < WANTED_ROWS) && size > MIN_FONT) {
      size -= 0.5; // what the guess missed: xterm.js rounds its cells to device pixels
      terminal.options.fontSize = size;
      koma.client.fit();
    }
    koma.fontSize = size;
  }

  // On a high-density screen (a phone's 2x or 3x) xterm.js's canvas can keep a pixel size made for 1x while its
  // glyphs are drawn for the density: the terminal shows three times too large, its right and bottom cut off.  After
  // each frame it draws, the page checks the canvas against its size on the page; a change of font size that changes
  // the cells makes xterm.js size its canvas again, and it ends on the size fitted.
  let layer = null;
  function sharpen() {
    const terminal = koma.terminal;
    if (!layer || !layer.isConnected) layer = document.querySelector("#terminal .xterm-screen canvas");
    if (!terminal || !layer || !layer.style.width) return;
    const wanted = Math.round(parseFloat(layer.style.width) * window.devicePixelRatio);
    if (Math.abs(layer.width - wanted) <= 2) return;
    koma.sharpened = (koma.sharpened || 0) + 1;
    const size = terminal.options.fontSize;
    terminal.options.fontSize = size + 2;
    terminal.options.fontSize = size;
  }

  let fitting = 0;
  function refit() {
    cancelAnimationFrame(fitting);
    fitting = requestAnimationFrame(fit);
  }
  window.addEventListener("resize", refit);
  window.addEventListener("orientationchange", refit);
  if (window.visualViewport) {
    window.visualViewport.addEventListener("resize", refit);
    window.visualViewport.addEventListener("scroll", refit);
  }
  koma.refit = fit;

  // --- announcements: the game's one short line per move, said by the page's live region ---
  function announce(text) {
    koma.announcements.push(text);
    const region = document.getElementById("announce");
    if (region) region.textContent = text;
  }

  // --- touch: a swipe sends the arrow key of its direction and a tap a click, both as the finger lifts; the bar's
  // buttons send what the game maps to its bindings (a private-use character per button, so a remapped key stays
  // right) ---
  const ARROWS = { left: "\x1b[D", right: "\x1b[C", up: "\x1b[A", down: "\x1b[B" };
  const BUTTONS = ["solve", "hint", "undo", "redo", "new", "back", "help", "read"]; // tui/widgets/touch.py's order
  const KEYS = { enter: "\r", space: " " }; // buttons sent as the keys themselves
  const SWIPE_PX = 24;

  function send(text) {
    if (koma.socket && koma.socket.readyState === 1) koma.socket.send(JSON.stringify(["stdin", text]));
  }
  koma.send = send;

  // A tap where the game reads the mouse: a press and a release at once, as xterm.js reports a click, when the finger
  // lifts (as a swipe's arrow key is sent).  The browser's own click would come a moment later, after a mouse move
  // to the point, and the game would do a move's work for that motion before the press.
  function tap(point) {
    const terminal = koma.terminal;
    const screen = document.querySelector("#terminal .xterm-screen");
    if (!terminal || !screen || terminal.modes.mouseTrackingMode === "none") return false;
    koma.taps.push({ at: performance.now() });
    const options = { bubbles: true, cancelable: true, view: window, clientX: point.x, clientY: point.y, button: 0 };
    koma.tapping = true; // a tap is a click in the game, focused or not
    try {
      screen.dispatchEvent(new MouseEvent("mousedown", { ...options, buttons: 1 }));
      screen.dispatchEvent(new MouseEvent("mouseup", { ...options, buttons: 0 }));
    } finally {
      koma.tapping = false;
    }
    return true;
  }

  function swipes() {
    const box = document.getElementById("terminal");
    let start = null;
    box.addEventListener("touchstart", (event) => {
      const touch = event.touches[0];
      start = event.touches.length === 1 ? { x: touch.clientX, y: touch.clientY } : null;
    }, { passive: true, capture: true });
    box.addEventListener("touchmove", (event) => {
      if (start) event.preventDefault(); // no page scroll or zoom while a swipe is drawn
    }, { passive: false, capture: true });
    box.addEventListener("touchend", (event) => {
      if (!start) return;
      const touch = event.changedTouches[0];
      const dx = touch.clientX - start.x;
      const dy = touch.clientY - start.y;
      const at = start;
      start = null;
      if (Math.max(Math.abs(dx), Math.abs(dy)) < SWIPE_PX) {
        if (tap(at)) event.preventDefault(); // sent: no click of the browser's after it
        return;
      }
      event.preventDefault();
      const way = Math.abs(dx) > Math.abs(dy) ? (dx > 0 ? "right" : "left") : dy > 0 ? "down" : "up";
      koma.swipes.push({ way, at: performance.now() });
      send(ARROWS[way]);
    }, { passive: false, capture: true });
  }

  function touchBar() {
    const bar = document.getElementById("touch-bar");
    const touch = navigator.maxTouchPoints > 0 || window.matchMedia("(pointer: coarse)").matches;
    bar.hidden = !touch;
    document.body.classList.toggle("touch", touch);
    bar.addEventListener("click", (event) => {
      const button = event.target.closest("button[data-button]");
      if (!button) return;
      if (button.dataset.button === "keyboard") {
        keyboard(!koma.keyboard);
        return;
      }
      koma.presses.push(button.dataset.button);
      const index = BUTTONS.indexOf(button.dataset.button);
      if (index >= 0) send(String.fromCharCode(0xe000 + index));
      else if (button.dataset.button in KEYS) send(KEYS[button.dataset.button]);
      if (koma.terminal) koma.terminal.focus();
    });
  }
  // on a touch screen the phone's keyboard stays down (a tap on a tile would bring it up) until asked for
  function keyboard(shown) {
    koma.keyboard = shown;
    const input = document.querySelector(".xterm-helper-textarea");
    if (input) input.setAttribute("inputmode", shown ? "text" : "none");
    const button = document.querySelector('#touch-bar button[data-button="keyboard"]');
    if (button) button.setAttribute("aria-pressed", String(shown));
    if (koma.terminal) {
      koma.terminal.blur();
      koma.terminal.focus();
    }
  }

  // The game's "ESC ] 7758 ; buttons=solve,back ; keyboard=text BEL": the bar shows those buttons (and ⌨) and no
  // others; a screen whose focused widget takes text (a room code) brings the keyboard up, and takes it down again
  // when it no longer does, if it was the screen that brought it up.
  function barState(text) {
    const fields = Object.fromEntries(text.split(";").map((field) => field.split("=")));
    const shown = new Set((fields.buttons || "").split(",").filter(Boolean));
    koma.bar = { buttons: [...shown], keyboard: fields.keyboard };
    for (const button of document.querySelectorAll("#touch-bar button[data-button]")) {
      if (button.dataset.button !== "keyboard") button.hidden = !shown.has(button.dataset.button);
    }
    if (document.body.classList.contains("touch")) {
      const wanted = fields.keyboard === "text";
      if (wanted && !koma.keyboard) {
        koma.keyboardAsked = true;
        keyboard(true);
      } else if (!wanted && koma.keyboardAsked) {
        koma.keyboardAsked = false;
        keyboard(false);
      }
    }
    placeTerminal(); // the bar may have gained or lost a row: in its place at once (a thumb may be on its way)
    refit();
  }

  // Android keyboards may send a key as keydown 229 ("being composed") and then only an input event with its text,
  // no composition around it.  xterm.js's screen-reader mode drops such text (and its keydown-229 path compares the
  // field's text before and after, which its own clearing turns into a backspace): the page takes both over, sends
  // the text itself, and leaves real compositions (an IME's compositionstart ... end) to xterm.js.
  function composed() {
    let pending = false;
    const helper = (event) => event.target instanceof HTMLElement && event.target.classList.contains("xterm-helper-textarea");
    document.addEventListener("keydown", (event) => {
      pending = event.keyCode === 229 && !event.isComposing && helper(event);
      if (pending) event.stopImmediatePropagation(); // xterm.js never sees it
    }, true);
    document.addEventListener("compositionstart", () => (pending = false), true);
    document.addEventListener("input", (event) => {
      if (!pending || !helper(event) || event.isComposing || event.inputType !== "insertText" || !event.data) return;
      pending = false;
      event.stopImmediatePropagation();
      koma.composed.push(event.data);
      send(event.data);
      event.target.value = "";
    }, true);
  }

  koma.keyboard = true;
  koma.keyboardAsked = false;
  koma.composed = [];
  koma.focusClicks = 0;
  koma.announcements = [];
  koma.swipes = [];
  koma.taps = [];
  koma.presses = [];

  // textual-serve starts on window.onload; wait for the page's font too, so xterm.js measures the right cells.
  const start = window.onload;
  window.onload = null;
  window.addEventListener("load", () => {
    touchBar();
    swipes();
    const box = document.getElementById("terminal");
    const guess = () => {
      const seen = placeTerminal();
      return String(guessFontSize(seen.width, seen.height));
    };
    box.dataset.fontSize = guess();
    const go = () => {
      box.dataset.fontSize = guess(); // measured in the page's own font now
      if (start) start.call(window, new Event("load"));
      if (document.body.classList.contains("touch")) keyboard(false);
      else if (koma.terminal) koma.terminal.focus(); // a newcomer's first key plays: no click needed first
    };
    // a press that only gives the terminal the focus back (after a click elsewhere on the page) is not a click in
    // the game: it could be a move
    box.addEventListener("mousedown", (event) => {
      const input = document.querySelector(".xterm-helper-textarea");
      if (!koma.terminal || koma.tapping || !input || document.activeElement === input) return;
      event.stopPropagation();
      event.preventDefault();
      koma.terminal.focus();
      koma.focusClicks += 1;
    }, true);
    composed();
    if (document.fonts) {
      document.fonts.load("16px 'Roboto Mono'").then(go, go);
    } else {
      go();
    }
  });
})();

// Koma's page script (ours; xterm.js and its driver come from textual-serve's package, loaded just before this).
// It points textual-serve's WebSocket at this page's own location (so it works behind HTTPS and a proxy), keeps a
// session token per tab (a reload finds the same game), turns on xterm.js's screen-reader mode, and says what
// happened when the connection ends.
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
      }
    },
  });

  // textual-serve starts on window.onload; wait for the page's font too, so xterm.js measures the right cells.
  const start = window.onload;
  window.onload = null;
  window.addEventListener("load", () => {
    const go = () => start && start.call(window, new Event("load"));
    if (document.fonts) {
      document.fonts.load("16px 'Roboto Mono'").then(go, go);
    } else {
      go();
    }
  });
})();

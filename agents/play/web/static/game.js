"use strict";
// One game's page: draws the view the server sends and posts the person's buttons.
// The server holds the game and its rules; this page only shows and asks.

(function () {
  const gid = decodeURIComponent(window.location.pathname.split("/").pop());
  const BUTTONS = {
    draw: ["BET", "STAY", "RAISE", "DRAW", "CALL", "DROP"],
    reddog: ["BET", "FORFEIT"],
    holdem: ["FOLD", "CHECK", "CALL", "RAISE", "ALL_IN"],
  };
  const LABELS = { ALL_IN: "ALL-IN", FORFEIT: "FORFEIT" };
  const SUITS = { c: "\u2663", d: "\u2666", h: "\u2665", s: "\u2660" };
  const $ = (id) => document.getElementById(id);
  let view = null;
  let marked = new Set();
  let busy = false;

  function el(tag, cls, text) {
    const e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined && text !== null) e.textContent = text;
    return e;
  }

  function cardEl(c, extra) {
    const red = c.suit === "h" || c.suit === "d";
    const e = el("div", "card" + (red ? " red" : "") + (extra ? " " + extra : ""));
    const rank = c.rank === "T" ? "10" : c.rank;
    const corner = el("span", "corner", rank + SUITS[c.suit]);
    const pip = el("span", "pip", SUITS[c.suit]);
    const corner2 = el("span", "corner bottom", rank + SUITS[c.suit]);
    e.append(corner, pip, corner2);
    e.title = c.text;
    e.dataset.card = c.text;
    return e;
  }

  function backEl() {
    return el("div", "card back");
  }

  function legal(name) {
    return view.buttons.find((b) => b.name === name) || null;
  }

  function drawButtonTakesCards() {
    const b = legal("DRAW");
    return b !== null && b.cards;
  }

  // ---------------------------------------------------------------- rendering
  function renderDraw() {
    const her = view.her;
    const opp = $("opponents");
    opp.replaceChildren();
    const box = el("div", "seat her");
    box.id = "seat-1";
    if (view.to_act === "she") box.classList.add("to-act");
    const name = el("div", "name", "She");
    const info = el("div", "info",
      `money ${her.money} · bet ${her.bet}` + (her.drawn === null ? "" : ` · drew ${her.drawn}`));
    const cards = el("div", "cards");
    for (let i = 0; i < 5; i++) cards.append(backEl());
    box.append(name, cards, info);
    opp.append(box);

    const w = $("wardrobe");
    w.replaceChildren();
    w.classList.remove("hidden");
    w.append(el("span", "wardrobe-title", "Her wardrobe"));
    for (const item of view.wardrobe) {
      const pill = el("span", "item " + item.state.replace("_", "-"), item.item);
      pill.dataset.item = item.item;
      pill.dataset.state = item.state;
      const what = { worn: "worn", at_stake: "at stake", lost: "lost" }[item.state];
      pill.title = `${item.item}: ${what}` + (item.bought_back ? " (bought back)" : "");
      if (item.state === "at_stake") pill.append(el("small", null, " at stake"));
      if (item.bought_back && item.state === "worn") pill.append(el("small", null, " bought back"));
      w.append(pill);
    }

    $("pot").textContent = `Pot ${view.pot}` + (view.to_call ? ` · ${view.to_call} to call` : "");
    $("board").replaceChildren();

    const mine = $("my-cards");
    mine.replaceChildren();
    const clickable = drawButtonTakesCards();
    view.you.cards.forEach((c, i) => {
      const n = i + 1;
      const e = cardEl(c, marked.has(n) ? "marked" : "");
      e.dataset.n = String(n);
      if (clickable) {
        e.classList.add("clickable");
        e.tabIndex = 0;
        e.setAttribute("role", "button");
        e.setAttribute("aria-pressed", marked.has(n) ? "true" : "false");
        e.addEventListener("click", () => toggle(n));
      }
      mine.append(e);
    });
    $("my-info").textContent =
      `You · money ${view.you.money} · bet ${view.you.bet}` +
      (view.you.drawn === null ? "" : ` · drew ${view.you.drawn}`);
    $("hint").textContent = clickable
      ? (marked.size
        ? `${marked.size} card${marked.size === 1 ? "" : "s"} marked: press DRAW to change ${marked.size === 1 ? "it" : "them"}`
        : "Click the cards you want to change, then press DRAW (none marked: stand pat)")
      : "";
    $("title").textContent = `Five-card draw · hand ${view.hand}`;
    $("status").textContent = view.over ? "match over" :
      `${view.phase} · ${view.to_act === "you" ? "your turn" : "she acts"}`;
  }

  function renderTable() {
    const opp = $("opponents");
    opp.replaceChildren();
    const holdem = view.game === "holdem";
    for (const p of view.players) {
      if (p.seat === 0) continue;
      const box = el("div", "seat");
      box.id = "seat-" + p.seat;
      if (p.to_act) box.classList.add("to-act");
      if (!p.seated || (holdem && !p.in_hand)) box.classList.add("out");
      const name = el("div", "name", p.name);
      const tags = holdem ? p.roles.join(" ") : (p.dealer ? "dealer" : "");
      if (tags) name.append(el("span", "tag", tags));
      const cards = el("div", "cards small");
      if (holdem && p.in_hand) { cards.append(backEl(), backEl()); }
      let info = `chips ${p.chips}`;
      if (holdem && p.bet) info += ` · bet ${p.bet}`;
      if (!p.seated) info += " · left";
      else if (!holdem && p.has_bet) info += " · has bet";
      box.append(name, cards, el("div", "info", info));
      opp.append(box);
    }
    $("wardrobe").classList.add("hidden");
    $("pot").textContent = `Pot ${view.pot}`;
    const board = $("board");
    board.replaceChildren();
    if (holdem) {
      view.board.forEach((c) => board.append(cardEl(c)));
      for (let i = view.board.length; i < 5 && view.street; i++) board.append(el("div", "card slot"));
    } else {
      if (view.turned.length) {
        board.append(el("span", "label", "turned"));
        view.turned.forEach((c) => board.append(cardEl(c, "small")));
      }
      if (view.shown.length) {
        board.append(el("span", "label", "shown"));
        view.shown.forEach((c) => board.append(cardEl(c, "small")));
      }
    }
    const mine = $("my-cards");
    mine.replaceChildren();
    view.cards.forEach((c) => mine.append(cardEl(c)));
    const me = view.players[0];
    let info = `You · chips ${me.chips}`;
    if (holdem) {
      if (me.bet) info += ` · bet ${me.bet}`;
      if (me.roles.length) info += ` · ${me.roles.join(" ")}`;
    } else if (me.dealer) info += " · dealer";
    $("my-info").textContent = info;
    $("hint").textContent = "";
    $("title").textContent = holdem
      ? `Texas Hold'em · hand ${view.hand}` + (view.street ? ` · ${view.street}` : "")
      : `Red Dog · deal ${view.deal} of ${view.deals}`;
    $("status").textContent = view.over ? "game over" :
      (view.to_act === "You" ? "your turn" : `${view.to_act || ""} acts`);
  }

  function renderButtons() {
    const box = $("buttons");
    box.replaceChildren();
    let amountButton = null;
    for (const name of BUTTONS[view.game]) {
      const b = legal(name);
      const label = b ? b.label : (LABELS[name] || name);
      const btn = el("button", "action", label);
      btn.type = "button";
      btn.dataset.name = name;
      btn.id = "btn-" + name;
      btn.disabled = !b || busy || view.over;
      if (b && b.min !== null) amountButton = b;
      if (b) btn.title = `key ${b.key}`;
      btn.addEventListener("click", () => act(name));
      box.append(btn);
    }
    const row = $("amount-row");
    if (amountButton) {
      row.classList.remove("hidden");
      const range = $("amount-range");
      const num = $("amount");
      const changed = range.min !== String(amountButton.min) || range.max !== String(amountButton.max);
      range.min = num.min = amountButton.min;
      range.max = num.max = amountButton.max;
      range.step = num.step = 1;
      if (changed || num.value === "") { range.value = num.value = amountButton.min; }
      $("amount-label").textContent = `${amountButton.label} amount`;
      $("amount-bounds").textContent =
        `${amountButton.min} to ${amountButton.max}` +
        (amountButton.amount_help ? ` (${amountButton.amount_help})` : "");
    } else {
      row.classList.add("hidden");
    }
  }

  function renderEvents(fresh) {
    const list = $("events");
    list.replaceChildren();
    let delay = 0;
    let lastSeat = null;
    for (const e of view.events) {
      const li = el("li", "ev " + e.kind + (e.seat === 0 ? " mine" : (e.seat === null ? "" : " theirs")), e.text);
      if (fresh && e.seat !== 0) {
        li.classList.add("new");
        li.style.animationDelay = `${delay}ms`;
        delay += 180;
      }
      if (e.seat !== null && e.seat !== 0) lastSeat = e.seat;
      list.append(li);
    }
    document.querySelectorAll(".seat.acted").forEach((s) => s.classList.remove("acted"));
    if (fresh && lastSeat !== null) {
      const seat = $("seat-" + lastSeat);
      if (seat) {
        void seat.offsetWidth;
        seat.classList.add("acted");
      }
    }
  }

  function renderHistory() {
    const list = $("history");
    list.replaceChildren();
    const results = view.results.slice(-60).reverse();
    for (const r of results) {
      const li = el("li", "result" + (r.winner === "you" ? " won" : r.winner === "she" ? " lost" : ""));
      li.textContent = (r.hand ? `Hand ${r.hand}: ` : "") + r.text;
      list.append(li);
    }
    const last = $("last-hand");
    last.replaceChildren();
    const r = view.results.length ? view.results[view.results.length - 1] : null;
    if (!r) { last.textContent = "-"; return; }
    if (view.game === "draw" && r.hands) {
      for (const who of ["you", "she"]) {
        const row = el("div", "hand-row");
        row.append(el("span", "who", who === "you" ? "You" : "She"));
        const cards = el("span", "cards tiny");
        r.hands[who].split(" ").forEach((t) =>
          cards.append(cardEl({ text: t, rank: t.slice(0, -1), suit: t.slice(-1) })));
        row.append(cards, el("span", "hand-name", r.names[who]));
        last.append(row);
      }
    }
    last.append(el("p", "result-text", r.text));
  }

  function render(fresh) {
    document.body.dataset.game = view.game;
    if (view.game === "draw") renderDraw(); else renderTable();
    renderButtons();
    renderEvents(fresh);
    renderHistory();
    const fin = $("final");
    if (view.over) {
      $("final-title").textContent = view.game === "draw" ? "Match over" : "Game over";
      $("final-text").textContent = view.final;
      fin.classList.remove("hidden");
    } else {
      fin.classList.add("hidden");
    }
  }

  // ---------------------------------------------------------------- actions
  function toggle(n) {
    if (marked.has(n)) marked.delete(n); else marked.add(n);
    render(false);
  }

  async function act(name) {
    const b = legal(name);
    if (!b || busy) return;
    const body = { button: name };
    if (b.min !== null) {
      const text = $("amount").value.trim();
      if (!/^-?\d+$/.test(text)) {
        $("message").textContent = `${b.label} needs a whole number from ${b.min} to ${b.max}`;
        return;
      }
      body.amount = Number(text);
    }
    if (b.cards) body.cards = Array.from(marked).sort();
    busy = true;
    $("message").textContent = "";
    try {
      const res = await fetch(`/api/games/${encodeURIComponent(gid)}/act`, {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify(body),
      });
      const data = await res.json();
      busy = false;
      if (!res.ok) {
        $("message").textContent = "Not accepted: " + (data.error || res.status);
        render(false);
        return;
      }
      view = data.view;
      marked = new Set();
      render(true);
    } catch (e) {
      busy = false;
      $("message").textContent = "The server does not answer: " + e;
    }
  }

  function wireAmount() {
    const range = $("amount-range");
    const num = $("amount");
    range.addEventListener("input", () => { num.value = range.value; });
    num.addEventListener("input", () => { if (/^\d+$/.test(num.value)) range.value = num.value; });
    num.addEventListener("keydown", (ev) => {
      if (ev.key === "Enter") {
        const b = view && view.buttons.find((x) => x.min !== null);
        if (b) act(b.name);
      }
    });
  }

  document.addEventListener("keydown", (ev) => {
    if (!view || ev.target instanceof HTMLInputElement || ev.ctrlKey || ev.metaKey || ev.altKey) return;
    if (/^[1-5]$/.test(ev.key) && drawButtonTakesCards()) { toggle(Number(ev.key)); return; }
    const b = view.buttons.find((x) => x.key === ev.key.toLowerCase());
    if (b) act(b.name);
  });

  async function load() {
    try {
      const res = await fetch(`/api/games/${encodeURIComponent(gid)}`);
      const data = await res.json();
      if (!res.ok) {
        $("title").textContent = "No such game";
        $("message").textContent = data.error || String(res.status);
        return;
      }
      view = data.view;
      render(false);
      document.body.classList.add("ready");
    } catch (e) {
      $("message").textContent = "The server does not answer: " + e;
    }
  }

  wireAmount();
  load();
})();

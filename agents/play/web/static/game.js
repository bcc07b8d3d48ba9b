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
  // A touch screen's word for pressing a card.
  const TAP = window.matchMedia && window.matchMedia("(pointer: coarse)").matches;
  const $ = (id) => document.getElementById(id);
  let view = null;
  // How much has happened in the game (the server's count): sent with each play, so a
  // play made on a screen the game has left is refused, not taken.
  let turn = null;
  let marked = new Set();
  let busy = false;
  // Just after a new table is drawn the buttons wait a moment: a double click, or a
  // key pressed twice, lands on the old table's button, not on the new one under it.
  const SETTLE_MS = 300;
  let settling = false;
  // The button or card that had the keyboard's focus: the buttons and cards are drawn
  // anew after every play, and the focus goes back to the same one (or their row).
  let wantFocus = null;
  // The amount box may be filled with the minimum (a new table was just drawn).
  let freshAmount = true;
  const MARKED = "poker_env.marked." + gid;
  // The final box closed to look at the table (until a reload).
  let finalClosed = false;
  const DISMISSED = "poker_env.showdown." + gid;

  // The showdown pause: a showdown that came with the person's latest action stays on
  // the table until "Next hand" (or the key n / Enter); a reload shows it again until then.
  function pausing() {
    const sd = view && view.showdown;
    return !!sd && sessionStorage.getItem(DISMISSED) !== String(sd.hand);
  }

  // The game's end after a showdown: the final screen keeps that hand on the table
  // (its cards face up, in Hold'em its board and the chips it left), as the terminal's
  // does; there is no next hand behind it.
  function finalShowdown() {
    return !!view && view.over && !!view.showdown && !pausing();
  }

  function showdownOnTable() {
    return pausing() || finalShowdown();
  }

  function nextHand() {
    if (!pausing()) return;
    sessionStorage.setItem(DISMISSED, String(view.showdown.hand));
    // The next hand's table is new to the person: its buttons wait as after a play, and
    // the focus goes to their row, on no button (a second Enter pressed on the pause
    // played that table's first button blind: BET, or FOLD in Hold'em).
    if (wantFocus || (document.activeElement && document.activeElement.id === "next-hand")) {
      wantFocus = "buttons";
    }
    settle();
    render(false);
    showFoot();
  }

  // The buttons wait SETTLE_MS from now (presses not taken); a newer wait replaces an older one.
  let settleTimer = null;
  function settle() {
    settling = true;
    if (settleTimer !== null) clearTimeout(settleTimer);
    settleTimer = setTimeout(() => {
      settleTimer = null;
      settling = false;
      renderButtons();
      restoreFocus();
    }, SETTLE_MS);
  }

  function el(tag, cls, text) {
    const e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined && text !== null) e.textContent = text;
    return e;
  }

  // A text with its cards ("Kd Qd", as the server writes them) shown as the table
  // shows them: K♦ Q♦, red or black, ten as 10 (the text's own words are kept). Only
  // after the words the game's texts name cards with (so that "As" or "Ah" as words
  // stay words): "shows", "turns", "the card", "cards:", "board", "hand", a street,
  // and a seat in the draw for the first dealer ("You Jd, Seat 1 Qd").
  const CARD_LIST = /\b((?:shows?|turns|card|cards:|board|hand|Flop:|Turn:|River:|You|Seat \d+) )((?:[2-9TJQKA][cdhs])(?: [2-9TJQKA][cdhs])*)\b/g;
  function withCards(node, text) {
    let at = 0;
    for (const m of text.matchAll(CARD_LIST)) {
      const start = m.index + m[1].length;
      if (start > at) node.append(text.slice(at, start));
      m[2].split(" ").forEach((card, i) => {
        if (i) node.append(" ");
        const red = card[1] === "h" || card[1] === "d";
        const span = el("span", "card-word" + (red ? " red" : ""), (card[0] === "T" ? "10" : card[0]) + SUITS[card[1]]);
        span.title = card;
        node.append(span);
      });
      at = start + m[2].length;
    }
    if (at < text.length) node.append(text.slice(at));
    return node;
  }
  function textEl(tag, cls, text) {
    return withCards(el(tag, cls), text);
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

  function textCard(t) {
    return { text: t, rank: t.slice(0, -1), suit: t.slice(-1) };
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
    if (view.to_act === "she" && !pausing()) box.classList.add("to-act");
    const name = el("div", "name", "She");
    const sd = pausing() ? view.showdown : null;
    // During the showdown pause no money is shown: the next hand's antes (and a stake)
    // are paid already, so the money now is not what that hand left.
    const info = el("div", "info", sd ? "" :
      `money ${her.money} · bet ${her.bet}` + (her.drawn === null ? "" : ` · drew ${her.drawn}`));
    const cards = el("div", "cards");
    const faceUp = sd || (finalShowdown() ? view.showdown : null);
    if (faceUp) {
      faceUp.hands.she.split(" ").forEach((t) => cards.append(cardEl(textCard(t))));
      if (faceUp.winner === "she") box.classList.add("winner");
    } else {
      for (let i = 0; i < 5; i++) cards.append(backEl());
    }
    box.append(name, cards, info);
    if (faceUp) box.append(el("span", "hand-name-tag", faceUp.names.she));
    opp.append(box);

    const w = $("wardrobe");
    w.replaceChildren();
    w.classList.remove("hidden");
    w.append(el("span", "wardrobe-title", "Her wardrobe"));
    // During the showdown pause, her wardrobe as that hand left it (the next hand's
    // ante may have staked an item already).
    for (const item of (sd && sd.wardrobe) || view.wardrobe) {
      const pill = el("span", "item " + item.state.replace("_", "-"), item.item);
      pill.dataset.item = item.item;
      pill.dataset.state = item.state;
      const what = { worn: "worn", at_stake: "at stake", lost: "lost" }[item.state];
      pill.title = `${item.item}: ${what}` + (item.bought_back ? " (bought back)" : "");
      if (item.state === "at_stake") pill.append(el("small", null, " at stake"));
      if (item.bought_back && item.state === "worn") pill.append(el("small", null, " bought back"));
      w.append(pill);
    }

    $("pot").textContent = pausing()
      ? `Pot ${view.showdown.pot}`
      : `Pot ${view.pot}` + (view.to_call ? ` · ${view.to_call} to call` : "");
    $("board").replaceChildren();

    const mine = $("my-cards");
    mine.replaceChildren();
    const sdMine = pausing() ? view.showdown : null;
    $("me").classList.toggle("winner", !!sdMine && sdMine.winner === "you");
    if (sdMine) {
      // Your showdown hand, in its place, with its name (the next deal waits).
      sdMine.hands.you.split(" ").forEach((t) => mine.append(cardEl(textCard(t))));
      $("my-info").textContent = "You";
      $("hint").textContent = sdMine.names.you;
      $("title").textContent = `Five-card draw · hand ${sdMine.hand} · showdown`;
      $("status").textContent = "showdown";
      return;
    }
    const clickable = drawButtonTakesCards();
    view.you.cards.forEach((c, i) => {
      const n = i + 1;
      const e = cardEl(c, marked.has(n) ? "marked" : "");
      e.dataset.n = String(n);
      e.id = "card-" + n;
      if (clickable) {
        e.classList.add("clickable");
        e.tabIndex = 0;
        e.setAttribute("role", "button");
        e.setAttribute("aria-pressed", marked.has(n) ? "true" : "false");
        e.setAttribute("aria-label", `card ${n}: ${c.text}` + (marked.has(n) ? ", marked" : ""));
        e.addEventListener("click", () => toggle(n));
        e.addEventListener("keydown", (ev) => {
          // As the role says: Space or Enter presses it.
          if (ev.key === " " || ev.key === "Enter") { ev.preventDefault(); ev.stopPropagation(); toggle(n); }
        });
      }
      mine.append(e);
    });
    $("my-info").textContent =
      `You · money ${view.you.money} · bet ${view.you.bet}` +
      (view.you.drawn === null ? "" : ` · drew ${view.you.drawn}`);
    $("hint").textContent = clickable
      ? (marked.size
        ? `${marked.size} card${marked.size === 1 ? "" : "s"} marked: press DRAW to change ${marked.size === 1 ? "it" : "them"}`
        : `${TAP ? "Tap" : "Click"} the cards you want to change, then press DRAW (none marked: stand pat)`)
      : "";
    if (finalShowdown()) {
      $("hint").textContent = view.showdown.names.you;
      $("me").classList.toggle("winner", view.showdown.winner === "you");
    }
    $("title").textContent = `Five-card draw · hand ${view.hand}`;
    $("status").textContent = view.over ? "match over" :
      `${view.phase} · ${view.to_act === "you" ? "your turn" : "she acts"}`;
  }

  function renderTable() {
    const opp = $("opponents");
    opp.replaceChildren();
    const holdem = view.game === "holdem";
    // The showdown pause of a hand of Hold'em: the chips once its pot was paid, no bets
    // or places of the next hand (already dealt behind the pause).
    const sdHand = showdownOnTable() && holdem ? view.showdown : null;
    for (const p of view.players) {
      if (p.seat === 0) continue;
      const box = el("div", "seat");
      box.id = "seat-" + p.seat;
      if (p.to_act && !showdownOnTable()) box.classList.add("to-act");  // (the next hand's)
      const showing = showdownOnTable() && holdem && view.showdown.shown.some((r) => r.seat === p.seat);
      if (!showing && (!p.seated || (holdem && !sdHand && !p.in_hand))) box.classList.add("out");
      const name = el("div", "name", p.name);
      const tags = sdHand ? "" : holdem ? p.roles.join(" ") : (p.dealer ? "dealer" : "");
      if (tags) name.append(el("span", "tag", tags));
      const cards = el("div", "cards small");
      const shown = showdownOnTable() && holdem ? view.showdown.shown.find((r) => r.seat === p.seat) : null;
      if (shown) {
        shown.cards.forEach((c) => cards.append(cardEl(c)));
        if (shown.won) box.classList.add("winner");
      } else if (holdem && p.in_hand && !sdHand) { cards.append(backEl(), backEl()); }
      // The parts of the seat's line (a phone puts each on a line of its own).
      const parts = [`chips ${sdHand ? sdHand.chips[p.seat] : p.chips}`];
      if (holdem && p.bet && !sdHand) parts.push(`bet ${p.bet}`);
      if (!p.seated) parts.push("left");
      else if (!holdem && p.has_bet) parts.push("has bet");
      const info = el("div", "info");
      parts.forEach((part, i) => {
        if (i) info.append(el("span", "sep", " · "));
        info.append(el("span", "part", part));
      });
      box.append(name, cards, info);
      if (shown) box.append(el("span", "hand-name-tag", shown.hand));
      opp.append(box);
    }
    $("wardrobe").classList.add("hidden");
    $("pot").textContent = `Pot ${showdownOnTable() ? view.showdown.pot : view.pot}`;
    const board = $("board");
    board.replaceChildren();
    if (holdem) {
      view.board.forEach((c) => board.append(cardEl(c)));
      for (let i = view.board.length; i < 5 && view.street; i++) board.append(el("div", "card slot"));
    } else {
      // Each list on its own row, its label at its left (at ten players the shown cards
      // run to forty and more: in one row with the turned ones they mixed).
      for (const [name, cards] of [["turned", view.turned], ["shown", view.shown]]) {
        if (!cards.length) continue;
        const group = el("div", "group");
        group.dataset.group = name;
        const row = el("div", "cards small");
        cards.forEach((c) => row.append(cardEl(c)));
        group.append(el("span", "label", name), row);
        board.append(group);
      }
    }
    const mine = $("my-cards");
    mine.replaceChildren();
    const mineShown = showdownOnTable() && holdem ? view.showdown.shown.find((r) => r.seat === 0) : null;
    $("me").classList.toggle("winner", !!mineShown && mineShown.won);
    if (showdownOnTable() && holdem) {
      if (mineShown) mineShown.cards.forEach((c) => mine.append(cardEl(c)));
      board.replaceChildren();
      view.showdown.board.split(" ").filter((t) => t).forEach((t) => board.append(cardEl(textCard(t))));
    } else {
      view.cards.forEach((c) => mine.append(cardEl(c)));
    }
    const me = view.players[0];
    let info = `You · chips ${sdHand ? sdHand.chips[0] : me.chips}`;
    if (holdem && !sdHand) {
      if (me.bet) info += ` · bet ${me.bet}`;
      if (me.roles.length) info += ` · ${me.roles.join(" ")}`;
    } else if (!holdem && me.dealer) info += " · dealer";
    $("my-info").textContent = info;
    $("hint").textContent = mineShown ? mineShown.hand : "";
    $("title").textContent = showdownOnTable() && holdem
      ? `Texas Hold'em · hand ${view.showdown.hand} · showdown`
      : holdem
      ? `Texas Hold'em · hand ${view.hand}` + (view.street ? ` · ${view.street}` : "")
      : `Red Dog · deal ${view.deal} of ${view.deals}`;
    $("status").textContent = view.over && !pausing() ? "game over" : sdHand ? "showdown" :
      (view.to_act === "You" ? "your turn" : `${view.to_act || ""} acts`);
  }

  function noteFocus() {
    const f = document.activeElement;
    if (f && f.closest && f.closest("#buttons, #my-cards") && f.id) wantFocus = f.id;
  }

  function restoreFocus() {
    if (!wantFocus || busy) return;
    let target = document.getElementById(wantFocus);
    if (!target || target.disabled || (wantFocus.startsWith("card-") && target.tabIndex < 0)) {
      // Gone or off now: the buttons' row itself, not another button (the first one
      // that could be pressed is FOLD in Hold'em: an Enter meant for the button used
      // before would fold). The next Tab goes on from the row.
      target = $("buttons");
    }
    if (!target.getClientRects().length && pausing()) {
      // Hidden (a phone hides the buttons during the showdown pause): "Next hand".
      target = $("next-hand");
    }
    target.focus({ preventScroll: true });
    wantFocus = null;
  }

  function renderButtons() {
    // Tests and assistive tools read this: a play is on its way, or the page has just
    // drawn a new table and its buttons wait a moment (SETTLE_MS).
    document.body.setAttribute("aria-busy", busy || settling ? "true" : "false");
    noteFocus();
    const box = $("buttons");
    box.replaceChildren();
    let amountButton = null;
    // During the showdown pause the next hand is already dealt behind it: its buttons
    // (and their amounts) would give away what she did there, so plain names, off.
    const pause = pausing();
    for (const name of BUTTONS[view.game]) {
      const b = pause ? null : legal(name);
      const label = b ? b.label : (LABELS[name] || name);
      const btn = el("button", "action", label);
      btn.type = "button";
      btn.dataset.name = name;
      btn.id = "btn-" + name;
      btn.disabled = !b || busy || view.over;
      // The moment after a new table: not off (Tab still reaches them), but a press
      // is not taken (act() waits for `settling`) and they look it.
      if (settling && !btn.disabled) {
        btn.classList.add("waiting");
        btn.setAttribute("aria-disabled", "true");
      }
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
      // Filled for a new table only: not while the person types (the wait's end redrew
      // the buttons and refilled an emptied box, so "50" became "650").
      if (changed || (freshAmount && num.value === "")) { range.value = num.value = amountButton.min; }
      freshAmount = false;
      $("amount-label").textContent = `${amountButton.label} amount`;
      $("amount-bounds").textContent =
        `${amountButton.min} to ${amountButton.max}` +
        (amountButton.amount_help ? ` (${amountButton.amount_help})` : "");
    } else {
      row.classList.add("hidden");
    }
  }

  // What "What happened" lists: during the showdown pause, the paused hand only (the
  // next hand is dealt behind the pause: its cards, its first plays, a stake or a buy
  // back between the hands would give away what the pause hides).
  function listedEvents() {
    const evs = view.events;
    if (!pausing() || view.over) return evs;
    let deal = -1;
    evs.forEach((e, i) => { if (e.kind === "deal") deal = i; });
    if (deal <= 0) return evs;
    let cut = deal;
    while (cut > 0 && evs[cut - 1].kind !== "result") cut--;
    return evs.slice(0, cut > 0 ? cut : deal);
  }

  function renderEvents(fresh) {
    const list = $("events");
    list.replaceChildren();
    let delay = 0;
    let lastSeat = null;
    for (const e of listedEvents()) {
      const li = textEl("li", "ev " + e.kind + (e.seat === 0 ? " mine" : (e.seat === null ? "" : " theirs")), e.text);
      if (e.new) {
        li.classList.add("new");
        if (fresh && e.seat !== 0) {
          li.classList.add("arrive");
          li.style.animationDelay = `${delay}ms`;
          delay = Math.min(delay + 180, 900);
        }
        if (e.seat !== null && e.seat !== 0) lastSeat = e.seat;
      }
      list.append(li);
    }
    list.scrollTop = list.scrollHeight;  // the whole hand is kept: scroll to the latest
    document.querySelectorAll(".seat.acted").forEach((s) => s.classList.remove("acted"));
    if (fresh && lastSeat !== null) {
      const seat = $("seat-" + lastSeat);
      if (seat) {
        void seat.offsetWidth;
        seat.classList.add("acted");
      }
    }
  }

  function linesEl(tag, cls, r) {
    // A result as separate lines (one per seat), not one paragraph.
    const box = el(tag, cls);
    for (const line of r.lines || [r.text]) box.append(textEl("span", "line", line));
    return box;
  }

  function renderHistory() {
    const list = $("history");
    list.replaceChildren();
    // The newest 60, numbered as they happened (a reversed list counts down from start).
    const results = view.results.slice(-60).reverse();
    list.start = view.results.length;
    for (const r of results) {
      const li = linesEl("li", "result" + (r.winner === "you" ? " won" : r.winner === "she" ? " lost" : ""), r);
      if (r.hand && view.game === "draw") li.prepend(el("span", "line hand-no", `Hand ${r.hand}:`));
      list.append(li);
    }
    const last = $("last-hand");
    last.replaceChildren();
    // Red Dog: your own latest bet (the other seats' deals follow it at once, and the
    // table then shows the next deal's cards), not whoever bet last.
    const reddog = view.game === "reddog";
    $("last-hand-title").textContent = reddog ? "Your last bet" : "Last hand";
    const pool = reddog ? view.results.filter((x) => x.seat === 0) : view.results;
    const r = pool.length ? pool[pool.length - 1] : null;
    if (!r) { last.textContent = "-"; return; }
    if (view.game === "draw" && r.hands) {
      for (const who of ["you", "she"]) {
        const row = el("div", "hand-row");
        row.append(el("span", "who", who === "you" ? "You" : "She"));
        const cards = el("span", "cards tiny");
        r.hands[who].split(" ").forEach((t) => cards.append(cardEl(textCard(t))));
        row.append(cards, el("span", "hand-name", r.names[who]));
        last.append(row);
      }
    }
    last.append(linesEl("div", "result-text", r));
  }

  function render(fresh) {
    noteFocus();
    document.body.dataset.game = view.game;
    $("table-info").textContent = `Opponent level ${view.level}. ${view.antes}`;
    if (view.game === "draw") renderDraw(); else renderTable();
    renderButtons();
    renderEvents(fresh);
    renderHistory();
    const bar = $("showdown");
    const pause = pausing();
    bar.classList.toggle("hidden", !pause);
    document.body.classList.toggle("showdown", pause);
    if (pause) {
      const sd = view.showdown;
      const verdict = $("showdown-text");
      verdict.replaceChildren();
      for (const line of sd.verdict || sd.lines) verdict.append(textEl("span", null, line));
      $("next-hand").textContent = view.over ? "See the result" : "Next hand";
    }
    const fin = $("final");
    $("final-reopen").classList.toggle("hidden", !(view.over && !pause && finalClosed));
    if (view.over && !pause && !finalClosed) {
      $("final-title").textContent = view.game === "draw" ? "Match over" : "Game over";
      $("final-text").replaceChildren();
      withCards($("final-text"), view.final);
      fin.classList.remove("hidden");
    } else {
      fin.classList.add("hidden");
    }
    restoreFocus();
  }

  // ---------------------------------------------------------------- actions
  function toggle(n) {
    if (marked.has(n)) marked.delete(n); else marked.add(n);
    // Kept for this table only: a reload shows the same cards marked.
    sessionStorage.setItem(MARKED, JSON.stringify({ turn, cards: Array.from(marked) }));
    render(false);
  }

  function restoreMarked() {
    marked = new Set();
    try {
      const saved = JSON.parse(sessionStorage.getItem(MARKED) || "null");
      if (saved && saved.turn === turn && drawButtonTakesCards()) {
        for (const n of saved.cards) if (Number.isInteger(n) && n >= 1 && n <= 5) marked.add(n);
      }
    } catch (e) { /* nothing marked */ }
  }

  // A new table from the server: shown, and its buttons off for a moment.
  function show(data, fresh) {
    view = data.view;
    turn = typeof data.turn === "number" ? data.turn : null;
    freshAmount = true;
    restoreMarked();
    settle();
    render(fresh);
    showFoot();
  }

  // A phone (the stylesheet's compact layout): a new table whose felt runs past the
  // screen's foot (ten seats at a showdown, a late Red Dog deal, a phone on its side)
  // is scrolled so that its foot is in view: your cards above the buttons in their
  // places (stuck to the screen's foot, the buttons would cover them). The seats above
  // scroll off; "What happened" says what they did.
  // (The stylesheet's compact layout sets --compact: the rule lives there.)
  function showFoot() {
    if (getComputedStyle(document.documentElement).getPropertyValue("--compact").trim() !== "1") return;
    const over = $("felt").getBoundingClientRect().bottom - window.innerHeight;
    if (over > 0) window.scrollBy(0, over + 4);
  }

  async function act(name) {
    const b = legal(name);
    if (!b || busy || settling || pausing()) return;
    const body = { button: name };
    if (turn !== null) body.turn = turn;
    if (b.min !== null) {
      const text = $("amount").value.trim();
      if (!/^-?\d+$/.test(text)) {
        $("message").textContent = `${b.label} needs a whole number from ${b.min} to ${b.max}`;
        return;
      }
      body.amount = Number(text);
      if (!Number.isSafeInteger(body.amount)) {
        // Past 2^53 a number is rounded: say what was typed, not the rounded one.
        $("message").textContent = `Not accepted: ${b.label} ${text} is out of bounds: from ${b.min} to ${b.max}` +
          (b.amount_help ? ` (${b.amount_help})` : "");
        return;
      }
    }
    if (b.cards) body.cards = Array.from(marked).sort();
    busy = true;
    $("message").textContent = "";
    renderButtons();
    try {
      const res = await fetch(`/api/games/${encodeURIComponent(gid)}/act`, {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify(body),
      });
      const data = await res.json();
      busy = false;
      if (!res.ok) {
        // A refusal brings the game as it is now (a play in another tab): show it.
        const stale = data.view && data.turn !== turn;
        if (stale) show(data, false); else render(false);
        $("message").textContent = "Not accepted: " + (data.error || res.status);
        return;
      }
      sessionStorage.removeItem(MARKED);
      $("amount").value = "";  // a refused amount does not linger into the next phase
      show(data, true);
    } catch (e) {
      busy = false;
      renderButtons();  // the buttons come back, so the play can be sent again
      restoreFocus();
      $("message").textContent = "The server does not answer: " + e;
    }
  }

  function wireAmount() {
    const range = $("amount-range");
    const num = $("amount");
    range.addEventListener("input", () => { num.value = range.value; });
    const follow = () => { if (/^\d+$/.test(num.value.trim())) range.value = num.value.trim(); };
    num.addEventListener("input", follow);
    num.addEventListener("change", follow);
    num.addEventListener("keydown", (ev) => {
      if (ev.key === "Enter") {
        const b = view && view.buttons.find((x) => x.min !== null);
        if (b) act(b.name);
      }
    });
  }

  document.addEventListener("keydown", (ev) => {
    if (!view || ev.target instanceof HTMLInputElement || ev.ctrlKey || ev.metaKey || ev.altKey) return;
    // A focused link opens as links do (Enter); the game's other keys still work.
    if (ev.target instanceof HTMLAnchorElement && (ev.key === "Enter" || ev.key === " ")) return;
    if (pausing()) {
      if (ev.key === "n" || ev.key === "Enter" || ev.key === " ") { ev.preventDefault(); nextHand(); }
      return;
    }
    if (ev.target instanceof HTMLButtonElement && (ev.key === "Enter" || ev.key === " ")) return;
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
      show(data, false);
      document.body.classList.add("ready");
    } catch (e) {
      $("message").textContent = "The server does not answer: " + e;
    }
  }

  wireAmount();
  // The person moved the focus elsewhere (the amount box, a link): leave it there.
  document.addEventListener("focusin", (ev) => {
    if (!(ev.target.closest && ev.target.closest("#buttons, #my-cards"))) wantFocus = null;
  });
  $("next-hand").addEventListener("click", nextHand);
  $("final-close").addEventListener("click", () => { finalClosed = true; render(false); });
  $("final-reopen").addEventListener("click", () => { finalClosed = false; render(false); });
  load();
})();

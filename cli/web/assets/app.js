// app.js: the page. It opens the socket to this seat's peer, and on every
// frame redraws the table: the board (by the game's drawing in
// game-*.js), the choices, the players, the history, the peers and the
// sync line. A click sends {"action": id}; the peer checks it.
"use strict";
(function () {
  var $ = function (id) { return document.getElementById(id); };
  var frame = null, sock = null, waiting = false, overShown = -1, toastTimer = null, dropArmed = false, claimArmed = false, drawn = "", sendTimer = null;

  function connect() {
    var url = "ws://" + location.host + location.pathname.replace(/[^/]*$/, "") + "ws";
    sock = new WebSocket(url);
    BM.sock = sock;
    sock.onmessage = function (ev) {
      var m;
      try { m = JSON.parse(ev.data); } catch (e) { return; }
      if (m.type === "frame") {
        var f = normalize(m.frame);
        if (!frame || f.step !== frame.step || f.actions.length === 0) waiting = false;
        if (f.busy) waiting = true; // a combo's next step is on its way
        frame = f;
        render(false);
      } else if (m.type === "error") { waiting = false; toast(m.text); render(true); }
    };
    sock.onclose = function () {
      document.body.classList.add("gone");
      $("status").textContent = frame && frame.over
        ? "The game is over. boardmesh has stopped serving this page; you may close it."
        : "Disconnected: boardmesh has stopped serving this page (the program ended or was stopped).";
      $("buttons").textContent = "";
      $("allbuttons").textContent = "";
      document.querySelectorAll("#board .can").forEach(function (e) { e.classList.remove("can"); });
    };
  }

  // normalize adds what the drawings read to the presentation model
  // (seats there count from 1; the games' views count from 0).
  function normalize(f) {
    f.seat = (f.you || 0) - 1;
    f.board = f.view || null;
    f.actions = f.actions || [];
    f.your_turn = f.actions.length > 0 && !f.busy;
    f.over = f.phase === "over";
    f.sync = f.sync || { ok: false, text: "" };
    f.desync = !f.sync.ok && !!f.sync.text && f.phase !== "lobby";
    f.hints = f.hints || {};
    // The terminal's key hints mean nothing here: the page has buttons.
    f.status = (f.status || "").replace(/ — press s to start$/, "");
    f.actions.forEach(function (a) { a.where = whereOf(a, f.hints[a.id]); });
    return f;
  }

  // whereOf is where on the board a click picks a: the game's own hint,
  // else the engine's Target (a card: in the hand first; a pile).
  function whereOf(a, hint) {
    if (hint) return hint;
    var t = a.target;
    if (!t || !t.kind) return null;
    if (t.kind === "card") return { kind: "pick", card: t.id };
    if (t.kind === "pile") return { kind: "pile", card: t.id };
    return null;
  }

  function send(act) {
    if (!sock || sock.readyState !== 1 || waiting) return;
    waiting = true;
    document.body.classList.add("sent");
    clearTimeout(sendTimer);
    // Should no answer come (a lost message), the page takes a choice
    // again after a while; the peer still plays each decision once.
    sendTimer = setTimeout(function () { waiting = false; document.body.classList.remove("sent"); }, 8000);
    sock.send(JSON.stringify({ action: act.id, step: frame ? frame.step : 0 }));
  }

  function toast(text) {
    var t = $("toast");
    t.textContent = text;
    t.hidden = false;
    clearTimeout(toastTimer);
    toastTimer = setTimeout(function () { t.hidden = true; }, 5000);
  }

  function gameOf(f) { return BM.games[f.game] || BM.games.generic; }

  function context(f) {
    var ctx = {
      frame: f, board: f.board, seat: f.seat, shown: {},
      send: function (a) { send(a); },
      // find returns the action whose target matches, and marks it shown.
      find: function (kind, match) {
        for (var i = 0; i < f.actions.length; i++) {
          var a = f.actions[i], t = a.where;
          if (t && t.kind === kind && (!match || match(t))) { return a; }
        }
        return null;
      },
      all: function (kind, match) {
        return f.actions.filter(function (a) { return a.where && a.where.kind === kind && (!match || match(a.where)); });
      },
      use: function (a) { if (a) ctx.shown[a.id] = true; return a; },
    };
    return ctx;
  }

  // render draws the frame. The board and the choices are drawn anew only
  // when what they show changed (or force): frames also come for a
  // ticking wait timer, and a click must not fall between two drawings.
  function render(force) {
    var f = frame;
    if (!f) return;
    document.body.classList.toggle("sent", waiting);
    document.body.setAttribute("data-step", String(f.step));
    BM.frame = f;
    document.body.classList.toggle("myturn", f.your_turn);
    document.body.classList.toggle("desync", !!f.desync);
    document.title = (f.your_turn ? "▶ " : "") + f.title + " · boardmesh";
    $("title").textContent = f.title;
    $("status").textContent = f.status || "";
    $("seatno").textContent = f.seat >= 0 ? "you are seat " + (f.seat + 1) : f.phase === "lobby" || f.phase === "starting" ? "seats not drawn yet" : "spectating";
    if (f.seat >= 0) $("seatno").style.setProperty("--seat", BM.seatColor(f.seat));
    var g = gameOf(f), ctx = context(f);
    var key = JSON.stringify([f.step, f.view, f.actions.map(function (a) { return a.id; }), f.hints, f.can_start, f.can_drop, dropArmed, f.can_claim, claimArmed, f.pause, f.phase, f.seats, f.lobby, f.phase === "lobby" ? f.status : ""]);
    if (force || key !== drawn) {
      drawn = key;
      var board = $("board");
      board.textContent = "";
      if (f.board) {
        try { board.appendChild(g.draw(ctx)); }
        catch (e) { board.appendChild(BM.h("pre", { text: "The board could not be drawn: " + e })); console.error("the board could not be drawn:", e); }
      } else {
        board.appendChild(lobby(f));
      }
      renderChoices(f, ctx, g);
    }
    renderSeats(f, ctx, g);
    renderHistory(f);
    renderPeers(f);
    var sync = $("sync");
    var cheats = (f.cheats || []).map(function (c) { return "CHEAT: " + c.text; });
    sync.textContent = cheats.concat([(f.desync ? "✗ " : f.sync.ok ? "✓ " : "") + (f.sync.text || (f.phase === "lobby" ? "" : "waiting for the first checkpoint"))]).join("\n");
    sync.className = f.desync || cheats.length ? "bad" : f.sync.ok ? "good" : "";
    renderTerms(f);
    if (f.over && overShown !== f.step) { overShown = f.step; showOver(f, ctx, g); }
  }

  function renderChoices(f, ctx, g) {
    var btns = $("buttons"), all = $("allbuttons");
    btns.textContent = "";
    all.textContent = "";
    var prompt = f.board && g.prompt ? g.prompt(ctx) : "";
    var onBoard = 0;
    if (f.can_start) {
      var st = BM.h("button", { type: "button", class: "default", "data-action": "start", text: "Start the game" });
      st.addEventListener("click", function () { send({ id: "start" }); });
      btns.appendChild(st);
    }
    if (f.can_drop && f.can_drop.length) {
      var names = f.can_drop.map(function (s) { return BM.seatName(f, s - 1); }).join(" and ");
      // Two clicks: a vote to drop someone is not taken by accident.
      var dr = BM.h("button", { type: "button", class: "risky", "data-action": dropArmed ? "drop" : "drop-ask",
        text: dropArmed ? "Yes, vote to drop " + names : "Vote to drop " + names + "…" });
      dr.addEventListener("click", function () {
        if (dropArmed) { dropArmed = false; send({ id: "drop" }); } else { dropArmed = true; render(true); }
      });
      btns.appendChild(dr);
    }
    if (!f.can_claim) claimArmed = false;
    if (f.can_claim) {
      // Two clicks, as the terminal's C then y: a claim ends the game and
      // cannot be taken back.
      if (claimArmed) {
        var yes = BM.h("button", { type: "button", class: "risky", "data-action": "claim", text: "Yes, claim the win: the game ends now" });
        yes.addEventListener("click", function () { claimArmed = false; send({ id: "claim" }); });
        var no = BM.h("button", { type: "button", "data-action": "claim-cancel", text: "No, wait for them" });
        no.addEventListener("click", function () { claimArmed = false; render(true); });
        btns.appendChild(yes);
        btns.appendChild(no);
      } else {
        var cl = BM.h("button", { type: "button", class: "risky", "data-action": "claim-ask", text: "Claim the win…" });
        cl.addEventListener("click", function () { claimArmed = true; render(true); });
        btns.appendChild(cl);
      }
    }
    f.actions.forEach(function (a) {
      var b = BM.h("button", { type: "button", "data-action": a.id, text: a.label, title: a.text || null,
        class: (a.id === f.default_action ? "default" : "") + (a.risky ? " risky" : "") });
      b.addEventListener("click", function () { send(a); });
      if (ctx.shown[a.id]) {
        onBoard++;
      } else {
        btns.appendChild(b);
        b = b.cloneNode(true);
        b.addEventListener("click", function () { send(a); });
      }
      all.appendChild(b);
    });
    if (f.pause) {
      // A table of two waits for the other player and cannot go on
      // without them: say so in the model's words, and what a claim does.
      prompt = f.pause.charAt(0).toUpperCase() + f.pause.slice(1) + "." +
        (claimArmed ? " Claim the win? The game ends now with you as the winner and cannot go on." : "");
      $("prompt").textContent = prompt;
      $("prompt").className = "pause";
      $("choices").classList.add("active");
      $("all").hidden = f.actions.length < 2;
      return;
    }
    $("prompt").className = "";
    if (f.your_turn && onBoard > 0) prompt = (prompt ? prompt + " — " : "") + "click a highlighted place on the board, or a button";
    else if (f.your_turn && !prompt) prompt = "Your move:";
    $("prompt").textContent = prompt;
    $("choices").classList.toggle("active", f.actions.length > 0 || !!f.can_start);
    $("all").hidden = f.actions.length < 2;
  }

  function renderSeats(f, ctx, g) {
    var box = $("seats");
    box.textContent = "";
    var rows = f.board && g.seats ? g.seats(ctx) : (f.seats || []).map(function (s) { return { seat: s.number - 1 }; });
    var turn = f.board && g.turn ? g.turn(f.board) : f.to_act - 1;
    rows.forEach(function (r) {
      var cls = "seat" + (r.seat === turn && !f.over ? " turn" : "") + (r.seat === f.seat ? " me" : "") + (r.left ? " left" : "");
      var peer = null, seat = (f.seats || [])[r.seat] || {}, stall = null;
      (f.peers || []).forEach(function (p) { if (p.seat === r.seat + 1) peer = p; });
      (f.stalls || []).forEach(function (s) { if (s.seat === r.seat + 1 && r.seat !== f.seat && s.for_ms >= 2000) stall = s; });
      var name = BM.you(f, r.seat);
      var el = BM.h("div", { class: cls }, [
        BM.h("span", { class: "chip", "data-seat": r.seat }),
        BM.h("div", { class: "who" }, [
          BM.h("div", { class: "name" }, [BM.h("b", { text: (r.seat + 1) + " " }), name, seat.bot ? BM.h("span", { class: "tag", text: "bot" }) : null,
            seat.dropped ? BM.h("span", { class: "tag", text: "dropped" }) : null,
            r.seat === turn && !f.over ? BM.h("span", { class: "tag now", text: "to move" }) : null]),
          r.detail ? BM.h("div", { class: "detail", text: r.detail }) : null,
          stall ? BM.h("div", { class: "stall", text: "the table waits for " + stall.what + ": " + Math.round(stall.for_ms / 1000) + " s" +
            (stall.can_drop ? " — you may vote to drop" : !stall.droppable ? " (too few players left to vote them out)" : f.drop_after_ms ? " (a drop may be proposed after " + Math.round(f.drop_after_ms / 1000) + " s)" : "") }) : null,
          stall && stall.why ? BM.h("div", { class: "stall why", text: stall.why }) : null,
          votes(f, r.seat + 1),
          peer && peer.conn === "not connected" && !stall ? BM.h("div", { class: "stall", text: "not connected" }) : null,
        ]),
        BM.h("div", { class: "score", title: r.tip || "" }, [BM.h("b", { text: r.score === undefined ? "" : String(r.score) }), BM.h("small", { text: r.unit || "" })]),
      ]);
      el.querySelector(".chip").style.background = BM.seatColor(r.seat);
      box.appendChild(el);
    });
  }

  function votes(f, seat) {
    var vs = (f.drop_votes || []).filter(function (v) { return v.seats.indexOf(seat) >= 0; });
    if (!vs.length) return null;
    var v = vs[0];
    return BM.h("div", { class: "stall", text: "drop vote: " + v.have + " of " + v.needed + " votes" });
  }

  var seatRe = /\(seat (\d+)\)/;
  function renderHistory(f) {
    var ol = $("history");
    var stick = ol.scrollTop + ol.clientHeight >= ol.scrollHeight - 8;
    ol.textContent = "";
    (f.history || []).forEach(function (e) {
      var li = BM.h("li", { class: "h-" + e.kind }, [
        e.who ? BM.h("b", { text: e.who + ": " }) : null, e.text || "",
        e.outcome ? BM.h("span", { class: "outcome", text: " — " + e.outcome }) : null]);
      var seat = e.seat;
      if (!seat) { var m = seatRe.exec(e.text || ""); if (m) seat = parseInt(m[1], 10); }
      if (seat) li.style.borderLeftColor = BM.seatColor(seat - 1);
      if (e.kind === "cheat" || e.kind === "desync") li.classList.add("warn");
      ol.appendChild(li);
    });
    if (stick || ol.scrollTop === 0) ol.scrollTop = ol.scrollHeight;
  }

  function renderTerms(f) {
    var box = $("terms");
    box.textContent = "";
    (f.terms || []).forEach(function (t) {
      box.appendChild(BM.h("div", { class: "term" }, [BM.h("b", { text: t.name }), BM.h("span", { text: " " + t.text })]));
    });
    $("termsbox").hidden = !(f.terms && f.terms.length);
  }

  function lobby(f) {
    var l = f.lobby || {};
    return BM.h("div", { class: "lobby" }, [
      BM.h("h2", { text: f.phase === "lobby" ? "In the lobby" : f.status || "Starting" }),
      l.code ? BM.h("p", null, ["Join code: ", BM.h("code", { text: l.code })]) : null,
      l.join ? BM.h("p", null, ["Others join with: ", BM.h("code", { text: l.join })]) : null,
      (l.addresses || []).length ? BM.h("p", null, ["Address: ", BM.h("code", { text: l.addresses[0] })]) : null,
      BM.h("p", { text: (l.joined || []).length ? "Joined: " + l.joined.join(", ") : "" }),
      f.can_start ? BM.h("p", { class: "dim", text: "Start the game once everyone has joined: the seats are drawn by the beacon." }) : null,
    ]);
  }

  function renderPeers(f) {
    var ul = $("peers");
    ul.textContent = "";
    (f.peers || []).forEach(function (p) {
      var li = BM.h("li", { class: p.conn === "not connected" ? "off" : "" }, [
        BM.h("span", { class: "chip" }),
        BM.h("span", { text: p.name + (p.seat > 0 ? " · seat " + p.seat : " · watching") + (p.bot ? " · bot" : "") }),
        BM.h("small", { text: (p.self ? "this peer" : p.conn) + (p.waited_ms >= 2000 && !p.self ? ", waited " + Math.round(p.waited_ms / 1000) + " s" : "") }),
      ]);
      li.querySelector(".chip").style.background = BM.seatColor(p.seat - 1);
      ul.appendChild(li);
    });
  }

  function showOver(f, ctx, g) {
    var t = $("overtable");
    t.textContent = "";
    var winners = ((f.result || {}).winners || []).map(function (w) { return w - 1; });
    var sc = { scores: [], winners: winners };
    (f.scores || []).forEach(function (s) { sc.scores[s.seat - 1] = s.total; });
    for (var i = 0; i < sc.scores.length; i++) if (sc.scores[i] === undefined) sc.scores[i] = "?";
    $("overreason").textContent = (f.result || {}).reason || "";
    var cols = partsTable(f) || (g.breakdown ? g.breakdown(ctx) : null);
    var head = BM.h("tr", null, [BM.h("th", { text: "Seat" }), BM.h("th", { text: "Player" })]);
    if (cols) cols.head.forEach(function (h) { head.appendChild(BM.h("th", { text: h })); });
    head.appendChild(BM.h("th", { text: "Score" }));
    t.appendChild(head);
    (sc.scores || []).forEach(function (s, i) {
      var win = (sc.winners || []).indexOf(i) >= 0;
      var tr = BM.h("tr", { class: win ? "win" : "" }, [
        BM.h("td", null, [BM.h("span", { class: "chip" }), " " + (i + 1)]),
        BM.h("td", { text: BM.you(f, i) }),
      ]);
      tr.querySelector(".chip").style.background = BM.seatColor(i);
      if (cols) (cols.rows[i] || []).forEach(function (c) { tr.appendChild(BM.h("td", { text: String(c) })); });
      tr.appendChild(BM.h("td", { class: "total", text: s + (win ? "  ★ winner" : "") }));
      t.appendChild(tr);
    });
    var mine = (sc.winners || []).indexOf(f.seat) >= 0;
    $("overtitle").textContent = f.seat >= 0 ? (mine ? "You won!" : "The game is over") : "The game is over";
    $("over").hidden = false;
  }

  // partsTable is the score breakdown from the model (the game's Scorer).
  function partsTable(f) {
    var head = [], rows = [];
    (f.scores || []).forEach(function (s) { (s.parts || []).forEach(function (p) { if (head.indexOf(p.label) < 0) head.push(p.label); }); });
    if (!head.length) return null;
    (f.scores || []).forEach(function (s) {
      rows[s.seat - 1] = head.map(function (h) {
        var v = "";
        (s.parts || []).forEach(function (p) { if (p.label === h) v = p.points; });
        return v;
      });
    });
    return { head: head, rows: rows };
  }

  $("overclose").addEventListener("click", function () { $("over").hidden = true; });
  document.addEventListener("keydown", function (ev) { if (ev.key === "Escape") $("over").hidden = true; });

  // generic draws any view as its JSON, for a game without a drawing.
  BM.games.generic = {
    draw: function (ctx) { return BM.h("pre", { class: "json", text: JSON.stringify(ctx.board, null, 1) }); },
  };

  BM.rerender = function () { render(true); };
  connect();
})();

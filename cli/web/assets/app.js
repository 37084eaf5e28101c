// app.js: the page. It opens the socket to this seat's peer, and on every
// frame redraws the table: the board (by the game's drawing in
// game-*.js), the choices, the players, the history, the peers and the
// sync line. A click sends {"action": id}; the peer checks it.
"use strict";
(function () {
  var $ = function (id) { return document.getElementById(id); };
  var frame = null, sock = null, waiting = false, overShown = -1, toastTimer = null;

  function connect() {
    var url = "ws://" + location.host + location.pathname.replace(/[^/]*$/, "") + "ws";
    sock = new WebSocket(url);
    sock.onmessage = function (ev) {
      var m;
      try { m = JSON.parse(ev.data); } catch (e) { return; }
      if (m.type === "frame") { frame = m.frame; waiting = false; render(); }
      else if (m.type === "error") { waiting = false; toast(m.text); render(); }
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

  function send(act) {
    if (!sock || sock.readyState !== 1 || waiting) return;
    waiting = true;
    document.body.classList.add("sent");
    sock.send(JSON.stringify({ action: act.id }));
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
          var a = f.actions[i], t = a.target;
          if (t && t.kind === kind && (!match || match(t))) { return a; }
        }
        return null;
      },
      all: function (kind, match) {
        return f.actions.filter(function (a) { return a.target && a.target.kind === kind && (!match || match(a.target)); });
      },
      use: function (a) { if (a) ctx.shown[a.id] = true; return a; },
    };
    return ctx;
  }

  function render() {
    var f = frame;
    if (!f) return;
    document.body.classList.remove("sent");
    document.body.setAttribute("data-step", String(f.step));
    BM.frame = f;
    document.body.classList.toggle("myturn", f.your_turn);
    document.body.classList.toggle("desync", !!f.desync);
    document.title = (f.your_turn ? "▶ " : "") + f.title + " · boardmesh";
    $("title").textContent = f.title;
    $("status").textContent = f.status || "";
    $("seatno").textContent = f.seat >= 0 ? "you are seat " + (f.seat + 1) : "spectating";
    if (f.seat >= 0) $("seatno").style.setProperty("--seat", BM.seatColor(f.seat));
    var g = gameOf(f), ctx = context(f);
    var board = $("board");
    board.textContent = "";
    if (f.board) {
      try { board.appendChild(g.draw(ctx)); }
      catch (e) { board.appendChild(BM.h("pre", { text: "The board could not be drawn: " + e })); console.warn(e); }
    } else {
      board.appendChild(BM.h("div", { class: "lobby", text: f.status || "Waiting for the game to start" }));
    }
    renderChoices(f, ctx, g);
    renderSeats(f, ctx, g);
    renderHistory(f);
    renderPeers(f);
    var sync = $("sync");
    sync.textContent = (f.desync ? "✗ " : f.sync ? "✓ " : "") + (f.sync || "waiting for the first checkpoint");
    sync.className = f.desync ? "bad" : f.sync ? "good" : "";
    if (f.over && overShown !== f.step) { overShown = f.step; showOver(f, ctx, g); }
  }

  function renderChoices(f, ctx, g) {
    var btns = $("buttons"), all = $("allbuttons");
    btns.textContent = "";
    all.textContent = "";
    var prompt = g.prompt ? g.prompt(ctx) : "";
    var onBoard = 0;
    f.actions.forEach(function (a) {
      var b = BM.h("button", { type: "button", "data-action": a.id, text: a.label });
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
    if (f.your_turn && onBoard > 0) prompt = (prompt ? prompt + " — " : "") + "click a highlighted place on the board, or a button";
    else if (f.your_turn && !prompt) prompt = "Your move:";
    $("prompt").textContent = prompt;
    $("choices").classList.toggle("active", f.actions.length > 0);
    $("all").hidden = f.actions.length < 2;
  }

  function renderSeats(f, ctx, g) {
    var box = $("seats");
    box.textContent = "";
    var rows = g.seats ? g.seats(ctx) : [];
    var turn = g.turn ? g.turn(f.board || {}) : -1;
    rows.forEach(function (r) {
      var cls = "seat" + (r.seat === turn && !f.over ? " turn" : "") + (r.seat === f.seat ? " me" : "") + (r.left ? " left" : "");
      var peer = null;
      (f.peers || []).forEach(function (p) { if (p.seat === r.seat) peer = p; });
      var name = BM.you(f, r.seat);
      var el = BM.h("div", { class: cls }, [
        BM.h("span", { class: "chip", "data-seat": r.seat }),
        BM.h("div", { class: "who" }, [
          BM.h("div", { class: "name" }, [BM.h("b", { text: (r.seat + 1) + " " }), name, peer && peer.bot ? BM.h("span", { class: "tag", text: "bot" }) : null,
            r.seat === turn && !f.over ? BM.h("span", { class: "tag now", text: "to move" }) : null]),
          r.detail ? BM.h("div", { class: "detail", text: r.detail }) : null,
          peer && peer.conn && !peer.self && peer.conn !== "connected" && peer.conn !== "here" ? BM.h("div", { class: "stall", text: peer.conn }) : null,
        ]),
        BM.h("div", { class: "score", title: r.tip || "" }, [BM.h("b", { text: r.score === undefined ? "" : String(r.score) }), BM.h("small", { text: r.unit || "" })]),
      ]);
      el.querySelector(".chip").style.background = BM.seatColor(r.seat);
      box.appendChild(el);
    });
  }

  var seatRe = /\(seat (\d+)\)|\bSeat (\d+)\b|\bseat (\d+)\b/;
  function renderHistory(f) {
    var ol = $("history");
    var stick = ol.scrollTop + ol.clientHeight >= ol.scrollHeight - 8;
    ol.textContent = "";
    (f.history || []).forEach(function (line) {
      var li = BM.h("li", { text: line });
      var m = seatRe.exec(line);
      if (m) li.style.borderLeftColor = BM.seatColor(parseInt(m[1] || m[2] || m[3], 10) - 1);
      if (/rejected|desync|cheat|equivocat/i.test(line)) li.className = "warn";
      ol.appendChild(li);
    });
    if (stick || ol.scrollTop === 0) ol.scrollTop = ol.scrollHeight;
  }

  function renderPeers(f) {
    var ul = $("peers");
    ul.textContent = "";
    (f.peers || []).forEach(function (p) {
      var li = BM.h("li", { class: p.conn === "not connected" ? "off" : "" }, [
        BM.h("span", { class: "chip" }),
        BM.h("span", { text: p.name + (p.seat >= 0 ? " · seat " + (p.seat + 1) : " · watching") + (p.bot ? " · bot" : "") }),
        BM.h("small", { text: p.self ? "this peer" : p.conn }),
      ]);
      li.querySelector(".chip").style.background = BM.seatColor(p.seat);
      ul.appendChild(li);
    });
  }

  function showOver(f, ctx, g) {
    var t = $("overtable");
    t.textContent = "";
    var sc = f.scores || { scores: [], winners: [], reason: f.result || "" };
    $("overreason").textContent = sc.reason || "";
    var cols = g.breakdown ? g.breakdown(ctx) : null;
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

  $("overclose").addEventListener("click", function () { $("over").hidden = true; });
  document.addEventListener("keydown", function (ev) { if (ev.key === "Escape") $("over").hidden = true; });

  // generic draws any view as its JSON, for a game without a drawing.
  BM.games.generic = {
    draw: function (ctx) { return BM.h("pre", { class: "json", text: JSON.stringify(ctx.board, null, 1) }); },
  };

  BM.rerender = render;
  connect();
})();

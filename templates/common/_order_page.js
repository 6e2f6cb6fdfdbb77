"use strict";
// The order page's script (docs/order-page.md): builds the order from the controls, shows
// the reasons the page was given for it (computed by the game's own check when the page was
// made), and signs it with the player's OpenSSH Ed25519 key (SIGNING, in _signing.js). Nothing is
// fetched or sent: the page's Content-Security-Policy allows no connection.
(function () {
  var DATA = JSON.parse(document.getElementById("order-data").textContent);
  var form = document.getElementById("order");

  // -- the order ---------------------------------------------------------------------------
  function control(name) { return form.elements.namedItem(name); }

  // The value a control holds: a JSON value from its options, or null when none is chosen.
  function valueOf(name) {
    var el = control(name);
    if (!el || el.value === "") return null;
    return JSON.parse(el.value);
  }

  // The order's body from the controls: each field's name is its path in the order file;
  // list entries left empty are left out, the others keep their order.
  function body() {
    var out = {};
    DATA.keys.forEach(function (key) {
      if (key.kind === "value") {
        var v = valueOf(key.name);
        if (v !== null) out[key.name] = v;
      } else if (key.kind === "map") {
        var m = {}, any = false;
        key.fields.forEach(function (f) {
          var v = valueOf(key.name + "." + f);
          if (v !== null) { m[f] = v; any = true; }
        });
        if (any || !key.optional) out[key.name] = m;
      } else {
        var list = [];
        for (var i = 0; i < key.rows; i++) {
          if (!key.fields) {
            var item = valueOf(key.name + "." + i);
            if (item !== null) list.push(item);
            continue;
          }
          var entry = {}, filled = false;
          key.fields.forEach(function (f) {
            var fv = valueOf(key.name + "." + i + "." + f);
            if (fv !== null) { entry[f] = fv; filled = true; }
          });
          if (key.fixed) {
            key.fixed.forEach(function (fx) { if (fx[0] === i) entry[fx[1]] = fx[2]; });
          }
          if (filled) list.push(entry);
        }
        if (list.length || !key.optional) out[key.name] = list;
      }
    });
    return out;
  }

  var scalar = SIGNING.scalar;
  function flowMap(m) {
    return "{" + Object.keys(m).map(function (k) { return k + ": " + scalar(m[k]); })
      .join(", ") + "}";
  }
  function yamlLine(key, v) {
    if (Array.isArray(v)) {
      if (!v.length) return key + ": []\n";
      if (typeof v[0] !== "object") return key + ": [" + v.map(scalar).join(", ") + "]\n";
      return key + ":\n" + v.map(function (e) { return "  - " + flowMap(e) + "\n"; }).join("");
    }
    if (v !== null && typeof v === "object") return key + ": " + flowMap(v) + "\n";
    return key + ": " + scalar(v) + "\n";
  }
  function orderText(b) {
    var text = "id: " + scalar(DATA.id) + "\nplayer: " + scalar(DATA.player) + "\nturn: " +
      DATA.turn + "\n";
    Object.keys(b).forEach(function (k) { text += yamlLine(k, b[k]); });
    return text;
  }

  // The place a list's row takes in the order file: how many rows above it are filled in.
  function placeOf(list, row) {
    var prefix = list + ".", filled = {};
    Array.prototype.forEach.call(form.elements, function (el) {
      if (el.name.indexOf(prefix) !== 0 || el.value === "") return;
      var r = Number(el.name.slice(prefix.length).split(".")[0]);
      if (r < row) filled[r] = true;
    });
    return Object.keys(filled).length;
  }

  // The reasons `check` gives for the order (which = "table"), or its notes on a good order
  // (which = "notes"), from the tables made with the page.
  function problems(which) {
    var found = [];
    DATA.parts.forEach(function (part) {
      var values = part.names.map(valueOf);
      if (part.list !== undefined) values.unshift(placeOf(part.list, part.row));
      var said = part[which][JSON.stringify(values)];
      if (said) said.forEach(function (i) { found.push(DATA.reasons[i]); });
    });
    return found;
  }

  // -- the page ----------------------------------------------------------------------------
  var lastOrder = null, lastSalt = null;

  function sign(event) {
    event.preventDefault();
    clearAll();
    SIGNING.keyMessage("");
    var b = body(), found = problems("table");
    SIGNING.showList(document.querySelector("output[name=problems]"), found);
    SIGNING.showList(
      document.querySelector("output[name=notes]"), found.length ? [] : problems("notes"));
    if (found.length) return;
    var text = orderText(b), key = control("key"), still = SIGNING.fresh();
    if (DATA.sealed) {
      // the reveal: the order with a salt of 256 random bits, drawn anew unless this order is
      // the last one signed: signing it again gives the same commitment and reveal (one
      // already sent stays good), and an order signed again after another is new bytes, not
      // a replay of the commitment sent first
      if (text !== lastOrder) {
        lastOrder = text;
        lastSalt = SIGNING.hex(crypto.getRandomValues(new Uint8Array(32)));
      }
      text += "salt: " + lastSalt + "\n";
    } else {
      text += SIGNING.signedAt();
    }
    SIGNING.signText(key, text, DATA.namespace, DATA.registered).then(function (armored) {
      if (!still()) return;
      SIGNING.offer(document.querySelector("a[name=download-order]"), text, DATA.file);
      SIGNING.offer(
        document.querySelector("a[name=download-signature]"), armored, DATA.file + ".sig");
      if (!DATA.sealed) {
        SIGNING.showSigned(text, armored, DATA, DATA.file.replace(/\.yaml$/, "-signed.yaml"));
        return;
      }
      // the commitment to send now (docs/commit-reveal.md); the reveal is kept for later
      control("reveal").value = text + armored;
      return SIGNING.sha256(DATA.domain + text).then(function (commit) {
        if (!still()) return;
        var promise = "id: " + scalar(DATA.id) + "\nplayer: " + scalar(DATA.player) +
          "\nturn: " + DATA.turn + "\ncommit: " + commit + "\n";
        var signing = SIGNING.signText(key, promise, DATA.namespace, DATA.registered);
        return signing.then(function (sig) {
          if (!still()) return;
          SIGNING.showSigned(promise, sig, DATA, DATA.file + ".commit");
          document.getElementById("reveal-part").hidden = false;
        });
      });
    }).catch(function (error) { if (still()) SIGNING.keyMessage(error); });
  }

  function makeKey(event) {
    event.preventDefault();
    SIGNING.makeKey(DATA.player + "@" + DATA.id, DATA.keyfile);
  }

  function clearAll() {
    SIGNING.clearSigned();
    if (DATA.sealed) {
      control("reveal").value = "";
      document.getElementById("reveal-part").hidden = true;
    }
  }

  form.addEventListener("change", clearAll);
  control("sign").addEventListener("click", sign);
  control("make-key").addEventListener("click", makeKey);
  form.addEventListener("submit", function (event) { event.preventDefault(); });
  clearAll();
})();

"use strict";
// The order page's script (docs/order-page.md): builds the order from the controls, shows
// the reasons the page was given for it (computed by the game's own check when the page was
// made), and signs it with the player's OpenSSH Ed25519 key through the browser's Web Crypto,
// as `ssh-keygen -Y sign -n NAMESPACE` does (OpenSSH's PROTOCOL.sshsig). Nothing is fetched
// or sent: the page's Content-Security-Policy allows no connection.
(function () {
  var DATA = JSON.parse(document.getElementById("order-data").textContent);
  var form = document.getElementById("order");
  var enc = new TextEncoder();

  // -- bytes -------------------------------------------------------------------------------
  function concat(parts) {
    var size = 0, i;
    for (i = 0; i < parts.length; i++) size += parts[i].length;
    var out = new Uint8Array(size), at = 0;
    for (i = 0; i < parts.length; i++) { out.set(parts[i], at); at += parts[i].length; }
    return out;
  }
  function u32(n) {
    return new Uint8Array([(n >>> 24) & 255, (n >>> 16) & 255, (n >>> 8) & 255, n & 255]);
  }
  function sshString(bytes) {
    if (typeof bytes === "string") bytes = enc.encode(bytes);
    return concat([u32(bytes.length), bytes]);
  }
  function b64(bytes) {
    var s = "", i;
    for (i = 0; i < bytes.length; i++) s += String.fromCharCode(bytes[i]);
    return btoa(s);
  }
  function unb64(text) {
    var s = atob(text), out = new Uint8Array(s.length), i;
    for (i = 0; i < s.length; i++) out[i] = s.charCodeAt(i);
    return out;
  }
  function wrap(text, width) {
    var lines = [], i;
    for (i = 0; i < text.length; i += width) lines.push(text.slice(i, i + width));
    return lines.join("\n");
  }
  function Reader(bytes) { this.b = bytes; this.at = 0; }
  Reader.prototype.u32 = function () {
    if (this.at + 4 > this.b.length) throw new Error("short");
    var b = this.b, a = this.at;
    this.at += 4;
    return ((b[a] << 24) >>> 0) + (b[a + 1] << 16) + (b[a + 2] << 8) + b[a + 3];
  };
  Reader.prototype.string = function () {
    var n = this.u32();
    if (this.at + n > this.b.length) throw new Error("short");
    var out = this.b.slice(this.at, this.at + n);
    this.at += n;
    return out;
  };
  Reader.prototype.text = function () { return new TextDecoder().decode(this.string()); };

  // -- OpenSSH keys ------------------------------------------------------------------------
  var MAGIC = enc.encode("openssh-key-v1\0");
  var PKCS8_ED25519 = new Uint8Array([48, 46, 2, 1, 0, 48, 5, 6, 3, 43, 101, 112, 4, 34, 4, 32]);
  var BEGIN_KEY = "-----BEGIN OPENSSH PRIVATE KEY-----";
  var END_KEY = "-----END OPENSSH PRIVATE KEY-----";

  function KeyProblem(word) { this.word = word; }

  // The Ed25519 key in an OpenSSH private key file: {seed, pub, comment}; KeyProblem else.
  function parseKey(text) {
    var start = text.indexOf(BEGIN_KEY), end = text.indexOf(END_KEY);
    if (start < 0 || end < start) throw new KeyProblem("key-not-openssh");
    var bytes;
    try {
      bytes = unb64(text.slice(start + BEGIN_KEY.length, end).replace(/\s+/g, ""));
    } catch (e) {
      throw new KeyProblem("key-not-openssh");
    }
    for (var i = 0; i < MAGIC.length; i++) {
      if (bytes[i] !== MAGIC[i]) throw new KeyProblem("key-not-openssh");
    }
    try {
      var r = new Reader(bytes);
      r.at = MAGIC.length;
      var cipher = r.text(), kdf = r.text();
      r.string();
      if (cipher !== "none" || kdf !== "none") throw new KeyProblem("key-encrypted");
      if (r.u32() !== 1) throw new KeyProblem("key-not-ed25519");
      var pubBlob = new Reader(r.string());
      if (pubBlob.text() !== "ssh-ed25519") throw new KeyProblem("key-not-ed25519");
      var secret = new Reader(r.string());
      if (secret.u32() !== secret.u32()) throw new KeyProblem("key-not-openssh");
      if (secret.text() !== "ssh-ed25519") throw new KeyProblem("key-not-ed25519");
      var pub = secret.string(), sk = secret.string(), comment = secret.text();
      if (pub.length !== 32 || sk.length !== 64) throw new KeyProblem("key-not-openssh");
      return { seed: sk.slice(0, 32), pub: pub, comment: comment };
    } catch (e) {
      if (e instanceof KeyProblem) throw e;
      throw new KeyProblem("key-not-openssh");
    }
  }

  function publicBlob(pub) { return concat([sshString("ssh-ed25519"), sshString(pub)]); }

  function publicLine(pub, comment) {
    return "ssh-ed25519 " + b64(publicBlob(pub)) + (comment ? " " + comment : "") + "\n";
  }

  // The private key file as `ssh-keygen -t ed25519 -N ""` writes it.
  function privateKeyFile(seed, pub, comment, check) {
    var secret = concat([
      u32(check), u32(check), sshString("ssh-ed25519"), sshString(pub),
      sshString(concat([seed, pub])), sshString(comment)
    ]);
    var pad = [], n = 1;
    while ((secret.length + pad.length) % 8 !== 0) pad.push(n++);
    secret = concat([secret, new Uint8Array(pad)]);
    var body = concat([
      MAGIC, sshString("none"), sshString("none"), sshString(new Uint8Array(0)), u32(1),
      sshString(publicBlob(pub)), sshString(secret)
    ]);
    return BEGIN_KEY + "\n" + wrap(b64(body), 70) + "\n" + END_KEY + "\n";
  }

  function importSeed(seed) {
    return crypto.subtle.importKey(
      "pkcs8", concat([PKCS8_ED25519, seed]), { name: "Ed25519" }, false, ["sign"]);
  }

  // The armored SSH signature of `message` (bytes), as `ssh-keygen -Y sign` writes it.
  function sshsig(key, message) {
    var namespace = DATA.namespace;
    return crypto.subtle.digest("SHA-512", message).then(function (hash) {
      var signed = concat([
        enc.encode("SSHSIG"), sshString(namespace), sshString(""), sshString("sha512"),
        sshString(new Uint8Array(hash))
      ]);
      return importSeed(key.seed).then(function (priv) {
        return crypto.subtle.sign({ name: "Ed25519" }, priv, signed);
      });
    }).then(function (sig) {
      var blob = concat([
        enc.encode("SSHSIG"), u32(1), sshString(publicBlob(key.pub)), sshString(namespace),
        sshString(""), sshString("sha512"),
        sshString(concat([sshString("ssh-ed25519"), sshString(new Uint8Array(sig))]))
      ]);
      return "-----BEGIN SSH SIGNATURE-----\n" + wrap(b64(blob), 70) +
        "\n-----END SSH SIGNATURE-----\n";
    });
  }

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

  var PLAIN = /^[A-Za-z_][A-Za-z0-9_.\-]*$/;
  var RESERVED = /^(y|n|yes|no|on|off|true|false|null)$/i;
  function scalar(v) {
    if (typeof v === "number") return String(v);
    if (PLAIN.test(v) && !RESERVED.test(v)) return v;
    return JSON.stringify(v);
  }
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
  var out = {
    signed: control("signed"), problems: document.querySelector("output[name=problems]"),
    notes: document.querySelector("output[name=notes]"),
    keyfile: control("key"), mailto: document.querySelector("a[name=mailto]"),
    download: document.querySelector("a[name=download]"),
    links: document.getElementById("signed-links"),
    keyMessage: document.getElementById("key-message"),
    made: document.getElementById("made-key")
  };

  function showProblems(where, list) {
    where.textContent = "";
    if (!list.length) return;
    var ul = document.createElement("ul");
    list.forEach(function (text) {
      var li = document.createElement("li");
      li.textContent = text;
      ul.appendChild(li);
    });
    where.appendChild(ul);
  }

  function clearSigned() {
    out.signed.value = "";
    out.mailto.removeAttribute("href");
    out.download.removeAttribute("href");
    out.links.hidden = true;
  }

  function readFile(file) {
    return new Promise(function (resolve, reject) {
      var reader = new FileReader();
      reader.onload = function () { resolve(String(reader.result)); };
      reader.onerror = function () { reject(reader.error); };
      reader.readAsText(file);
    });
  }

  function keyMessage(word) {
    var said = word ? document.querySelector("[data-word=" + word + "]") : null;
    out.keyMessage.textContent = said ? said.textContent : "";
    out.keyMessage.hidden = !word;
    var hint = document.getElementById("key-passphrase");
    hint.hidden = word !== "key-encrypted";
  }

  function sign(event) {
    event.preventDefault();
    clearSigned();
    keyMessage("");
    var b = body(), found = problems("table");
    showProblems(out.problems, found);
    showProblems(out.notes, found.length ? [] : problems("notes"));
    if (found.length) return;
    var file = out.keyfile.files && out.keyfile.files[0];
    if (!file) { keyMessage("key-missing"); return; }
    var text = orderText(b);
    readFile(file).then(function (keyText) {
      var key = parseKey(keyText);
      return sshsig(key, enc.encode(text));
    }).then(function (armored) {
      var signed = text + armored;
      out.signed.value = signed;
      out.mailto.href = "mailto:" + DATA.address + "?subject=" +
        encodeURIComponent(DATA.subject) + "&body=" + encodeURIComponent(signed);
      out.download.href = "data:text/plain;charset=utf-8," + encodeURIComponent(signed);
      out.download.setAttribute("download", DATA.file);
      var order = document.querySelector("a[name=download-order]");
      order.href = "data:text/plain;charset=utf-8," + encodeURIComponent(text);
      order.setAttribute("download", DATA.file);
      var sig = document.querySelector("a[name=download-signature]");
      sig.href = "data:text/plain;charset=utf-8," + encodeURIComponent(armored);
      sig.setAttribute("download", DATA.file + ".sig");
      out.links.hidden = false;
    }).catch(function (e) {
      keyMessage(e instanceof KeyProblem ? e.word : "key-failed");
    });
  }

  function makeKey(event) {
    event.preventDefault();
    var comment = DATA.player + "@" + DATA.id;
    crypto.subtle.generateKey({ name: "Ed25519" }, true, ["sign", "verify"]).then(function (k) {
      return Promise.all([
        crypto.subtle.exportKey("pkcs8", k.privateKey), crypto.subtle.exportKey("raw", k.publicKey)
      ]);
    }).then(function (both) {
      var seed = new Uint8Array(both[0]).slice(-32), pub = new Uint8Array(both[1]);
      var check = crypto.getRandomValues(new Uint32Array(1))[0];
      var priv = privateKeyFile(seed, pub, comment, check);
      var line = publicLine(pub, comment);
      var privLink = document.querySelector("a[name=download-private-key]");
      privLink.href = "data:application/octet-stream;base64," + b64(enc.encode(priv));
      privLink.setAttribute("download", DATA.keyfile);
      var pubLink = document.querySelector("a[name=download-public-key]");
      pubLink.href = "data:text/plain;charset=utf-8," + encodeURIComponent(line);
      pubLink.setAttribute("download", DATA.keyfile + ".pub");
      control("private-key").value = priv;
      control("public-key").value = line;
      out.made.hidden = false;
    }).catch(function () { keyMessage("key-no-ed25519"); });
  }

  form.addEventListener("change", clearSigned);
  control("sign").addEventListener("click", sign);
  control("make-key").addEventListener("click", makeKey);
  form.addEventListener("submit", function (event) { event.preventDefault(); });
  clearSigned();
})();

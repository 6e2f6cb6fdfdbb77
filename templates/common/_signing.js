"use strict";
// What the order page and the notice page share (docs/order-page.md): OpenSSH Ed25519 keys
// and signatures in the browser (read a private key file, sign as `ssh-keygen -Y sign -n
// NAMESPACE` does, after OpenSSH's PROTOCOL.sshsig, through Web Crypto, and make a new key as
// `ssh-keygen -t ed25519 -N ""` writes it), and a YAML scalar as the adjudicator reads it.
// Nothing is fetched or sent.
var SIGNING = (function () {
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
    // a public key line (the .pub file) where the private key file is wanted
    if (/^\s*(ssh|ecdsa-sha2|sk-ssh)-[A-Za-z0-9@.-]+ AAAA/.test(text)) {
      throw new KeyProblem("key-public");
    }
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
      var outer = new Reader(pubBlob.b), inner = publicBlob(pub);
      outer.string();
      if (!same(outer.string(), pub) || !same(sk.slice(32), pub) || !inner.length) {
        throw new KeyProblem("key-not-openssh");  // a file whose parts disagree
      }
      return { seed: sk.slice(0, 32), pub: pub, comment: comment };
    } catch (e) {
      if (e instanceof KeyProblem) throw e;
      throw new KeyProblem("key-not-openssh");
    }
  }

  function same(a, b) {
    if (a.length !== b.length) return false;
    for (var i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
    return true;
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

  // The public key the seed makes (Web Crypto's JWK of the private key holds it as x).
  function derivedPublic(seed) {
    return crypto.subtle.importKey(
      "pkcs8", concat([PKCS8_ED25519, seed]), { name: "Ed25519" }, true, ["sign"]
    ).then(function (k) { return crypto.subtle.exportKey("jwk", k); }).then(function (jwk) {
      var x = jwk.x.replace(/-/g, "+").replace(/_/g, "/");
      while (x.length % 4) x += "=";
      return unb64(x);
    });
  }

  function importSeed(seed) {
    return crypto.subtle.importKey(
      "pkcs8", concat([PKCS8_ED25519, seed]), { name: "Ed25519" }, false, ["sign"]);
  }

  // The armored SSH signature of `message` (bytes) in `namespace`, as `ssh-keygen -Y sign`
  // writes it.
  function sshsig(key, message, namespace) {
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

  function readFile(file) {
    return new Promise(function (resolve, reject) {
      var reader = new FileReader();
      reader.onload = function () { resolve(String(reader.result)); };
      reader.onerror = function () { reject(reader.error); };
      reader.readAsText(file);
    });
  }

  // What the page says of the key file: the words of `word` (a data-word element), or none.
  function keyMessage(word) {
    if (word && typeof word !== "string") word = "key-failed";  // anything else that failed
    var said = word ? document.querySelector("[data-word=" + word + "]") : null;
    var shown = document.getElementById("key-message");
    shown.textContent = said ? said.textContent : "";
    shown.hidden = !word;
    document.getElementById("key-passphrase").hidden = word !== "key-encrypted";
  }

  // The armored signature of `text` by the key file chosen in `input`, in `namespace`; a
  // rejected promise whose reason is the word for the page when there is no good key, or when
  // the key is not `registered` (the base64 of the public key the game master has for the
  // player, if given): a signature by another key would not count.
  function signText(input, text, namespace, registered) {
    var file = input.files && input.files[0];
    if (!file) return Promise.reject("key-missing");
    return readFile(file).then(function (keyText) {
      if (registered && new Reader(unb64(registered)).text() !== "ssh-ed25519") {
        throw new KeyProblem("key-registered-not-ed25519");
      }
      var key = parseKey(keyText);
      if (registered && b64(publicBlob(key.pub)) !== registered) {
        throw new KeyProblem("key-not-registered");
      }
      return derivedPublic(key.seed).then(function (pub) {
        if (!same(pub, key.pub)) throw new KeyProblem("key-not-openssh");
        return sshsig(key, enc.encode(text), namespace);
      });
    }).catch(function (e) {
      throw e instanceof KeyProblem ? e.word : (typeof e === "string" ? e : "key-failed");
    });
  }

  // The Ed25519 key of the private key file chosen in `input`, checked as signText checks it:
  // {seed, pub, comment}, or a rejected promise whose reason is the word for the page.
  function readKey(input) {
    var file = input.files && input.files[0];
    if (!file) return Promise.reject("key-missing");
    return readFile(file).then(function (keyText) {
      var key = parseKey(keyText);
      return derivedPublic(key.seed).then(function (pub) {
        if (!same(pub, key.pub)) throw new KeyProblem("key-not-openssh");
        return key;
      });
    }).catch(function (e) {
      throw e instanceof KeyProblem ? e.word : (typeof e === "string" ? e : "key-failed");
    });
  }

  // Make a new key (`comment` its comment, `keyfile` its file name) and show it to be saved;
  // the promise gives the key ({seed, pub, comment}), or nothing when the browser cannot.
  function makeKey(comment, keyfile) {
    var made = crypto.subtle.generateKey({ name: "Ed25519" }, true, ["sign", "verify"]);
    return made.then(function (k) {
      return Promise.all([
        crypto.subtle.exportKey("pkcs8", k.privateKey), crypto.subtle.exportKey("raw", k.publicKey)
      ]);
    }).then(function (both) {
      var seed = new Uint8Array(both[0]).slice(-32), pub = new Uint8Array(both[1]);
      var check = crypto.getRandomValues(new Uint32Array(1))[0];
      var priv = privateKeyFile(seed, pub, comment, check);
      var line = publicLine(pub, comment);
      // the private key is put in the link only while it is clicked, so that a page saved
      // afterwards ("Save as") does not carry it
      var privLink = document.querySelector("a[name=download-private-key]");
      privLink.href = "#made-key";
      privLink.setAttribute("download", keyfile);
      privLink.onclick = function () {
        privLink.href = "data:application/octet-stream;base64," + b64(enc.encode(priv));
        setTimeout(function () { privLink.href = "#made-key"; }, 1000);
      };
      var pubLink = document.querySelector("a[name=download-public-key]");
      pubLink.href = "data:text/plain;charset=utf-8," + encodeURIComponent(line);
      pubLink.setAttribute("download", keyfile + ".pub");
      document.querySelector("textarea[name=private-key]").value = priv;
      document.querySelector("textarea[name=public-key]").value = line;
      document.getElementById("made-key").hidden = false;
      return { seed: seed, pub: pub, comment: comment };
    }).catch(function () { keyMessage("key-no-ed25519"); });
  }

  // The reasons in `list` shown in `output` (a list, under the element `<name>-heading`).
  function showList(output, list) {
    output.textContent = "";
    document.getElementById(output.name + "-heading").hidden = !list.length;
    if (!list.length) return;
    var ul = document.createElement("ul");
    list.forEach(function (text) {
      var li = document.createElement("li");
      li.textContent = text;
      ul.appendChild(li);
    });
    output.appendChild(ul);
  }

  function named(selector) { return document.querySelector(selector); }

  // Signing is done in the background: any change on the page (`clearSigned`) makes what a
  // signing under way would show stale, and `fresh` gives a signing the test of whether it
  // still may show it.
  var generation = 0;
  function fresh() {
    var mine = generation;
    return function () { return mine === generation; };
  }

  // A comment that dates the signing: each signing makes new bytes, so that a file signed
  // again after another (an order, a vote changed back) is not refused as a replay.
  function signedAt() { return "# signed " + new Date().toISOString() + "\n"; }

  // No signed text shown, and no link to send it.
  function clearSigned() {
    generation += 1;
    named("textarea[name=signed]").value = "";
    named("a[name=mailto]").removeAttribute("href");
    named("a[name=download]").removeAttribute("href");
    document.getElementById("signed-links").hidden = true;
  }

  // `text` signed (`armored`) shown to paste, with a mailto: link to `data.address` that
  // answers the mail `data.answers` (RFC 6068 allows In-Reply-To, so the answer threads) and a
  // link that downloads both as the file `name`.
  function showSigned(text, armored, data, name) {
    var signed = text + armored;
    named("textarea[name=signed]").value = signed;
    var to = encodeURIComponent(data.address).replace(/%40/g, "@");  // RFC 6068
    named("a[name=mailto]").href = "mailto:" + to + "?subject=" +
      encodeURIComponent(data.subject) +
      (data.answers ? "&In-Reply-To=" + encodeURIComponent(data.answers) : "") +
      "&body=" + encodeURIComponent(signed);
    offer(named("a[name=download]"), signed, name);
    document.getElementById("signed-links").hidden = false;
  }

  // Bytes as lower-case hex digits.
  function hex(bytes) {
    return Array.prototype.map.call(new Uint8Array(bytes), function (b) {
      return (b < 16 ? "0" : "") + b.toString(16);
    }).join("");
  }

  // The SHA-256 of `text` (as UTF-8), as hex digits.
  function sha256(text) {
    return crypto.subtle.digest("SHA-256", enc.encode(text)).then(hex);
  }

  // A link that downloads `text` as the file `name`.
  function offer(link, text, name) {
    link.href = "data:text/plain;charset=utf-8," + encodeURIComponent(text);
    link.setAttribute("download", name);
  }

  // A value as a YAML scalar: a plain word where YAML reads it back as the same text, else
  // a double-quoted string (JSON's escapes are YAML's).
  var PLAIN = /^[A-Za-z_][A-Za-z0-9_.\-]*$/;
  var RESERVED = /^(y|n|yes|no|on|off|true|false|null)$/i;
  function scalar(v) {
    if (typeof v === "number") return String(v);
    if (PLAIN.test(v) && !RESERVED.test(v)) return v;
    return JSON.stringify(v);
  }

  return {
    signText: signText, keyMessage: keyMessage, makeKey: makeKey, offer: offer,
    showList: showList, clearSigned: clearSigned, showSigned: showSigned, fresh: fresh,
    signedAt: signedAt,
    scalar: scalar, hex: hex, sha256: sha256, parseKey: parseKey, sshsig: sshsig,
    readKey: readKey, publicLine: publicLine
  };
})();

/// The inspector's stylesheet and script, served by the daemon itself (no CDN, no fonts, no
/// build step). The script only fetches the daemon's own JSON endpoints and writes text nodes.
enum InspectorAssets {
    static let css = #"""
        :root { color-scheme: light dark; --fg: #1b1f24; --muted: #5b6470; --line: #d5dae0; --bg: #f6f8fa;
          --card: #fff; --accent: #0b57d0; --danger: #b3261e; }
        @media (prefers-color-scheme: dark) { :root { --fg: #e6e8eb; --muted: #a0a8b3; --line: #3a414a; --bg: #15181c;
          --card: #1e2227; --accent: #8ab4f8; --danger: #f2b8b5; } }
        * { box-sizing: border-box; }
        body { margin: 0; font: 15px/1.45 system-ui, sans-serif; color: var(--fg); background: var(--bg); }
        header.top { display: flex; flex-wrap: wrap; gap: .5rem 1.25rem; align-items: center; padding: .6rem 1rem;
          background: var(--card); border-bottom: 1px solid var(--line); }
        .brand { font-weight: 700; color: var(--fg); text-decoration: none; }
        nav { display: flex; flex-wrap: wrap; gap: .25rem 1rem; align-items: center; }
        nav .scope { font-family: ui-monospace, monospace; color: var(--muted); }
        .clock { margin-left: auto; padding: .1rem .5rem; border: 1px solid var(--danger); border-radius: 4px;
          color: var(--danger); font-size: .9rem; }
        main { padding: 1rem; max-width: 80rem; margin: 0 auto; }
        h1 { font-size: 1.4rem; margin: .2rem 0 1rem; overflow-wrap: anywhere; }
        h2 { font-size: 1.1rem; margin: .2rem 0 .6rem; }
        a { color: var(--accent); }
        .card { background: var(--card); border: 1px solid var(--line); border-radius: 8px; padding: .8rem 1rem;
          margin: 0 0 1rem; }
        .table-wrap { overflow-x: auto; }
        table { border-collapse: collapse; width: 100%; }
        th, td { text-align: left; padding: .35rem .5rem; border-bottom: 1px solid var(--line); vertical-align: top;
          overflow-wrap: anywhere; }
        th { font-weight: 600; color: var(--muted); white-space: nowrap; }
        .mono, code, pre { font-family: ui-monospace, monospace; }
        td[data-label="Phone"] { white-space: nowrap; }
        /* An address breaks only when it cannot fit at all, never inside a short one. */
        td[data-label="Email"] { overflow-wrap: break-word; }
        pre { white-space: pre-wrap; overflow-wrap: anywhere; margin: 0; }
        dl.grid { display: grid; grid-template-columns: max-content 1fr; gap: .25rem 1rem; margin: 0; }
        dl.grid dt { color: var(--muted); } dl.grid dd { margin: 0; overflow-wrap: anywhere; }
        .actions { display: flex; flex-wrap: wrap; gap: .5rem; margin-top: .8rem; align-items: center; }
        form.stack { display: grid; gap: .3rem; max-width: 28rem; }
        form.stack.wide { max-width: 48rem; }
        form.stack label.check { display: flex; gap: .4rem; align-items: center; }
        .row { display: flex; gap: .4rem; } .row input { flex: 1; min-width: 0; }
        form.search { margin-bottom: 1rem; max-width: 36rem; }
        form.filters { display: flex; flex-wrap: wrap; gap: .4rem .6rem; align-items: center; margin-bottom: 1rem; }
        input, select, textarea, button { font: inherit; padding: .35rem .5rem; border: 1px solid var(--line);
          border-radius: 6px; background: var(--card); color: var(--fg); }
        button { cursor: pointer; } button:focus-visible, a:focus-visible, input:focus-visible { outline: 2px solid var(--accent); }
        .danger button, .danger-button { color: var(--danger); border-color: var(--danger); }
        form.danger { margin-top: .5rem; }
        .notice { padding: .5rem .8rem; border-left: 4px solid var(--accent); background: var(--card); }
        .error { padding: .5rem .8rem; border-left: 4px solid var(--danger); background: var(--card); color: var(--danger); }
        .hint { color: var(--muted); }
        .totp output { font-family: ui-monospace, monospace; font-weight: 700; }
        .copy, button.small { padding: .05rem .4rem; font-size: .85em; }
        form.inline { display: inline; }
        img.qr { display: block; background: #fff; padding: 4px; margin: .5rem 0; max-width: 100%; height: auto; }
        ul.factors { padding-left: 1.1rem; }
        @media (max-width: 40rem) { main { padding: .6rem; }
          form.filters { display: grid; grid-template-columns: max-content 1fr; }
          table.cards thead { display: none; }
          table.cards tr { display: block; padding: .4rem 0; border-bottom: 1px solid var(--line); }
          table.cards td { display: grid; grid-template-columns: 7rem 1fr; gap: .5rem; border: 0; padding: .1rem .3rem; }
          table.cards td::before { content: attr(data-label); color: var(--muted); }
          table.cards td[colspan] { display: block; }
          table.cards td:empty { display: none; } th, td { padding: .3rem; } dl.grid { grid-template-columns: 1fr; }
          dl.grid dd { margin-bottom: .3rem; } }
        """#

    static let script = #"""
        'use strict';
        (function () {
          var api = document.body.getAttribute('data-scope-api');

          // Times: the browser's own zone, UTC on hover.
          function localTimes(root) {
            root.querySelectorAll('time[datetime]').forEach(function (el) {
              var date = new Date(el.getAttribute('datetime'));
              if (!isNaN(date)) { el.textContent = date.toLocaleString(); el.title = date.toISOString() + ' (UTC)'; }
            });
          }
          localTimes(document);

          document.addEventListener('click', function (event) {
            var button = event.target.closest('button.copy');
            if (!button) return;
            navigator.clipboard.writeText(button.getAttribute('data-copy')).then(function () {
              button.textContent = 'Copied';
              setTimeout(function () { button.textContent = 'Copy'; }, 1200);
            });
          });

          function cell(text, className) {
            var td = document.createElement('td');
            if (className) { var code = document.createElement('code'); code.className = className; code.textContent = text; td.appendChild(code); }
            else td.textContent = text;
            return td;
          }
          function timeCell(iso) {
            var td = document.createElement('td'), time = document.createElement('time');
            time.setAttribute('datetime', iso); time.textContent = iso; td.appendChild(time); localTimes(td);
            return td;
          }
          function copyButton(text) {
            var button = document.createElement('button');
            button.type = 'button'; button.className = 'copy'; button.setAttribute('data-copy', text); button.textContent = 'Copy';
            return button;
          }

          // SMS outbox: the daemon's long-poll (smsMessages?afterId=…&wait=…), newest first.
          var smsRows = document.getElementById('sms-rows');
          if (smsRows && api) {
            (function poll() {
              var query = 'after=' + encodeURIComponent(smsRows.getAttribute('data-after') || '0') + '&wait=25';
              var filter = smsRows.getAttribute('data-filter');
              if (filter) query += '&' + filter;
              fetch(api + '/smsMessages?' + query).then(function (r) { return r.json(); }).then(function (body) {
                (body.smsMessages || []).forEach(function (m) {
                  var tr = document.createElement('tr');
                  tr.setAttribute('data-testid', 'sms-row');
                  tr.appendChild(timeCell(m.sentAt));
                  tr.appendChild(cell(m.phoneNumber));
                  var code = cell(m.code, 'sms'); code.firstChild.setAttribute('data-testid', 'sms-code');
                  code.appendChild(document.createTextNode(' ')); code.appendChild(copyButton(m.code));
                  tr.appendChild(code); tr.appendChild(cell(m.purpose)); tr.appendChild(cell(m.status));
                  smsRows.insertBefore(tr, smsRows.firstChild);
                  smsRows.setAttribute('data-after', String(m.id));
                });
                poll();
              }).catch(function () { setTimeout(poll, 2000); });
            })();
          }

          // Email action links: checked every second.
          var oobRows = document.getElementById('oob-rows');
          if (oobRows && api) {
            setInterval(function () {
              fetch(api + '/oobCodes').then(function (r) { return r.json(); }).then(function (body) {
                var email = oobRows.getAttribute('data-email');
                (body.oobCodes || []).forEach(function (c) {
                  if (email && c.email !== email) return;
                  if (oobRows.querySelector('tr[data-code="' + CSS.escape(c.oobCode) + '"]')) return;
                  var tr = document.createElement('tr');
                  tr.setAttribute('data-code', c.oobCode);
                  tr.appendChild(cell(c.email)); tr.appendChild(cell(c.requestType));
                  var td = document.createElement('td'), a = document.createElement('a');
                  a.href = c.oobLink; a.textContent = 'open'; a.target = '_blank'; a.rel = 'noopener';
                  a.setAttribute('data-testid', 'oob-link');
                  td.appendChild(a); td.appendChild(document.createTextNode(' ')); td.appendChild(copyButton(c.oobLink));
                  tr.appendChild(td);
                  oobRows.insertBefore(tr, oobRows.firstChild);
                });
              }).catch(function () {});
            }, 1000);
          }

          // APNs pushes: the daemon's long-poll.
          var apnsRows = document.getElementById('apns-rows');
          if (apnsRows && api) {
            (function poll() {
              var after = apnsRows.getAttribute('data-after') || '0';
              fetch(api + '/apnsPushes?after=' + encodeURIComponent(after) + '&wait=25').then(function (r) { return r.json(); }).then(function (body) {
                (body.apnsPushes || []).forEach(function (p) {
                  var tr = document.createElement('tr'), td = document.createElement('td'), pre = document.createElement('pre');
                  tr.appendChild(timeCell(p.sentAt));
                  pre.setAttribute('data-testid', 'apns-push'); pre.textContent = JSON.stringify(p.payload, null, 2);
                  td.appendChild(pre); tr.appendChild(td);
                  apnsRows.insertBefore(tr, apnsRows.firstChild);
                  apnsRows.setAttribute('data-after', String(p.id));
                });
                poll();
              }).catch(function () { setTimeout(poll, 2000); });
            })();
          }

          // Import: the chosen file's text goes into the form's field (the POST stays urlencoded).
          var importFile = document.getElementById('import-file');
          if (importFile) {
            importFile.addEventListener('change', function () {
              var file = importFile.files[0];
              if (!file) return;
              file.text().then(function (text) { document.getElementById('import-text').value = text; });
            });
          }

          // TOTP factors: the daemon's current code (its clock may have been moved) and the seconds left.
          var totps = document.querySelectorAll('output[data-testid="totp-code"]');
          if (totps.length && api) {
            var refresh = function () {
              totps.forEach(function (out) {
                var query = 'localId=' + encodeURIComponent(out.getAttribute('data-local-id')) +
                  '&mfaEnrollmentId=' + encodeURIComponent(out.getAttribute('data-enrollment'));
                fetch(api + '/totpCodes?' + query).then(function (r) { return r.json(); }).then(function (body) {
                  if (!body.code) return;
                  out.textContent = body.code;
                  var seconds = out.parentNode.querySelector('output[data-testid="totp-seconds"]');
                  if (seconds) seconds.textContent = String(body.validForSeconds);
                }).catch(function () {});
              });
            };
            setInterval(refresh, 1000);
          }
        })();
        """#
}

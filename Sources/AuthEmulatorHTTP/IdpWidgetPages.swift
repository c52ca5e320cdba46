import AuthEmulator
import Foundation
import Hummingbird

/// The pages the SDKs open for popup and redirect IdP sign-in against an emulator
/// (`/emulator/auth/handler`, `/emulator/auth/iframe`). The handler lists the IdP's accounts and
/// makes new ones; the chosen one goes back to the app as an auth event whose `urlResponse` is
/// `…/emulator/auth/handler?providerId=…&id_token=<JSON claims>`, which the SDK then sends to
/// `signInWithIdp` as `requestUri`. Delivery follows the SDKs: popups through the relay iframe
/// of the opener, web redirects through this origin's sessionStorage, Android through an
/// `intent://` link (`genericidp` scheme), iOS through the app's URL scheme.
enum IdpWidgetPages {
    /// The handler page: its own inline script and style (by nonce), its XHR to this daemon, no
    /// frame around it (it is a popup or a redirect's page).
    static func handlerPolicy(nonce: String) -> String {
        "default-src 'none'; script-src 'nonce-\(nonce)'; style-src 'nonce-\(nonce)'; connect-src 'self'; "
            + "img-src 'self' data:; form-action 'none'; frame-ancestors 'none'; base-uri 'none'"
    }

    /// The relay iframe: its inline script (by nonce) and gapi's iframe library from
    /// apis.google.com, which it needs as the SDK's own helper iframe does (`'strict-dynamic'` for
    /// what that library loads, `'unsafe-eval'` for how it loads it; nothing of a request reaches
    /// either). Framed by the app's page, of any origin.
    static func relayPolicy(nonce: String) -> String {
        "default-src 'none'; script-src 'nonce-\(nonce)' 'strict-dynamic' 'unsafe-eval' https://apis.google.com; "
            + "connect-src 'self'; frame-src https://apis.google.com; form-action 'none'; base-uri 'none'"
    }

    static func escaped(_ text: String) -> String { MarkupEscaping.escaped(text) }

    static func handler(
        providerId: String, accounts: [(info: ProviderUserInfo, idToken: String)], nonce: String
    ) -> String {
        let items = accounts.map { account -> String in
            let name = account.info.displayName ?? "(no display name)"
            let email = account.info.email ?? ""
            return """
                <li><button type="button" class="account" data-id-token="\(escaped(account.idToken))">\
                <b>\(escaped(name))</b><br><small>\(escaped(email))</small></button></li>
                """
        }.joined(separator: "\n")
        let help =
            accounts.isEmpty
            ? "No \(escaped(providerId)) accounts exist in the emulator yet: add one."
            : "Pick an account of the emulator, or add a new one:"
        return """
            <!DOCTYPE html>
            <meta charset="utf-8">
            <meta name="viewport" content="width=device-width, initial-scale=1">
            <title>authemu: sign in with \(escaped(providerId))</title>
            <style nonce="\(nonce)">
            body { font-family: system-ui, sans-serif; max-width: 32rem; margin: 2rem auto; padding: 0 1rem; }
            ul { list-style: none; padding: 0; } li { margin: .4rem 0; }
            button.account { width: 100%; text-align: left; padding: .6rem; }
            label { display: block; margin: .6rem 0 .2rem; } input { width: 100%; padding: .4rem; box-sizing: border-box; }
            #error { color: #b00020; min-height: 1.2em; }
            </style>
            <h1>Sign in with \(escaped(providerId))</h1>
            <p>\(help)</p>
            <ul id="accounts">
            \(items)
            </ul>
            <form id="add">
              <h2>New account</h2>
              <label for="email">Email</label><input id="email" name="email" type="email" required>
              <label for="name">Display name (optional)</label><input id="name" name="name">
              <label for="screen">Screen name (optional)</label><input id="screen" name="screen">
              <label for="photo">Photo URL (optional)</label><input id="photo" name="photo" type="url">
              <p id="error"></p>
              <button type="submit" id="sign-in">Sign in as this account</button>
            </form>
            <script nonce="\(nonce)">
            \(script)
            </script>
            """
    }

    /// Kept to ES5 so it runs in the embedded browsers of the mobile SDKs too. Everything is inside
    /// one function: a global `var` or `function` named like a browser global (`parent`, `stop`,
    /// `name`, …) would replace it.
    static let script = #"""
        (function () {
        var query = new URLSearchParams(location.search);
        function showError(message) {
          document.body.textContent = 'authemu IdP widget: ' + message;
          document.body.style.color = '#b00020';
          throw new Error(message);
        }
        if (query.get('error')) showError(query.get('error'));
        var apiKey = query.get('apiKey');
        var appName = query.get('appName');
        var authType = query.get('authType') || '';
        var providerId = query.get('providerId');
        var redirectUrl = query.get('redirectUrl');
        var eventId = query.get('eventId');
        var clientId = query.get('clientId');
        var firebaseAppId = query.get('appId');
        var apn = query.get('apn');
        var ibi = query.get('ibi');
        var storageKey = apiKey + ':' + appName;
        var sessionId = '';
        for (var s = 0; s < 20; s++) sessionId += 'abcdefghijklmnopqrstuvwxyz0123456789'.charAt(Math.floor(Math.random() * 36));
        if (!(appName || clientId || firebaseAppId || apn || ibi)) {
          showError('the link names no app (appName, clientId, appId, apn or ibi).');
        }
        // The daemon checked these already (IdpWidgetLink); a page that is changed later still
        // navigates only to a web address or the app's own scheme.
        function isWebAddress(url) {
          try { return /^https?:$/.test(new URL(url).protocol); } catch (e) { return false; }
        }
        if (redirectUrl && !isWebAddress(redirectUrl)) showError('redirectUrl is not an http(s) address.');

        function finish(claimsJson) {
          var urlResponse = location.href.split('?')[0] + '?providerId=' + encodeURIComponent(providerId) +
              '&id_token=' + encodeURIComponent(claimsJson);
          var authEvent = {type: authType, eventId: eventId, urlResponse: urlResponse,
                           sessionId: sessionId, postBody: '', tenantId: null, error: null};
          if (/popup/i.test(authType)) return relayToOpener(authEvent);
          if (apn) return openAndroidApp(authEvent);
          if (ibi) return openIosApp(authEvent);
          if (redirectUrl) {
            sessionStorage['firebase:redirectEvent:' + storageKey] = JSON.stringify(authEvent);
            handOverToDaemon(authEvent, function () { location.assign(redirectUrl); });
            return;
          }
          showError('this sign-in flow has no way back to the app; use signInWithCredential.');
        }

        // The app's helper iframe has its own (partitioned) sessionStorage when the app's site is
        // not the emulator's (localhost vs 127.0.0.1), so the result also goes through the daemon.
        function handOverToDaemon(authEvent, then) {
          var appOrigin = '';
          try { appOrigin = new URL(redirectUrl).origin; } catch (e) { return then(); }
          var request = new XMLHttpRequest();
          request.open('POST', '/emulator/auth/redirectEvents');
          request.setRequestHeader('Content-Type', 'application/json');
          request.onloadend = then;
          request.send(JSON.stringify({apiKey: apiKey, appName: appName, appOrigin: appOrigin,
                                       eventId: eventId, sessionId: sessionId, authEvent: authEvent}));
        }

        // The JS SDK's popup flow listens in its helper iframe (/emulator/auth/iframe) on the opener.
        function relayToOpener(authEvent) {
          var delivered = false;
          var frames = window.opener ? window.opener.frames : [];
          for (var i = 0; i < frames.length; i++) {
            try {
              var frameQuery = new URLSearchParams(frames[i].location.search);
              if (frameQuery.get('apiKey') === apiKey && frameQuery.get('appName') === appName) {
                frames[i].postMessage({eventType: 'sendAuthEvent', eventId: String(Date.now()),
                                       data: {authEvent: authEvent, storageKey: storageKey}}, '*');
                delivered = true;
              }
            } catch (e) { /* a frame of another origin */ }
          }
          if (!delivered) showError('no helper iframe of this app found on the page that opened the popup.');
        }

        function openAndroidApp(authEvent) {
          var link = 'intent://firebase.auth/#Intent;scheme=genericidp;package=' + apn +
              ';S.authType=' + encodeURIComponent(authEvent.type) + ';' +
              (authEvent.eventId ? 'S.eventId=' + encodeURIComponent(authEvent.eventId) + ';' : '') +
              'S.link=' + encodeURIComponent(authEvent.urlResponse) + ';B.encryptionEnabled=false;' +
              'S.browser_fallback_url=' + encodeURIComponent(location.href + '&error=App+not+found+for+intent') +
              ';end;';
          location.replace(link);
        }

        function openIosApp(authEvent) {
          var callback = location.protocol + '//' + location.host + '/__/auth/callback?authType=' +
              encodeURIComponent(authEvent.type) + '&link=' + encodeURIComponent(authEvent.urlResponse) +
              (authEvent.eventId ? '&eventId=' + encodeURIComponent(authEvent.eventId) : '');
          var scheme = clientId ? clientId.split('.').reverse().join('.')
              : firebaseAppId ? 'app-' + firebaseAppId.replace(/:/g, '-') : ibi;
          if (!/^[a-z][a-z0-9+.-]*$/i.test(scheme) || /^(javascript|data|vbscript|file|blob|about|filesystem)$/i.test(scheme)) {
            showError('the app\'s URL scheme is not one an app can have.');
          }
          var host = (clientId || firebaseAppId) ? 'firebaseauth' : 'google';
          location.replace(scheme + '://' + host + '/link?deep_link_id=' + encodeURIComponent(callback));
        }

        var accounts = document.querySelectorAll('button.account');
        for (var i = 0; i < accounts.length; i++) {
          accounts[i].addEventListener('click', function (e) { finish(e.currentTarget.dataset.idToken); });
        }

        document.getElementById('add').addEventListener('submit', function (e) {
          e.preventDefault();
          var email = document.getElementById('email').value;
          if (email.indexOf('@') < 0) {
            document.getElementById('error').textContent = 'An email address needs an "@".';
            return;
          }
          var sub = '';
          for (var i = 0; i < 21; i++) sub += Math.floor(Math.random() * 10);
          var claims = {sub: sub, iss: '', aud: '', exp: 0, iat: 0, email: email, email_verified: true};
          var name = document.getElementById('name').value;
          var screen = document.getElementById('screen').value;
          var photo = document.getElementById('photo').value;
          if (name) claims.name = name;
          if (screen) claims.screen_name = screen;
          if (photo) claims.picture = photo;
          finish(JSON.stringify(claims));
        });
        })();
        """#

    /// The JS SDK's helper iframe: answers its `webStorageSupport` probe and hands over the auth
    /// event of a popup (posted by the handler page) or of a redirect (left in sessionStorage, or,
    /// when this iframe's storage is partitioned from the sign-in page's, kept by the daemon). It
    /// needs gapi's iframe library from apis.google.com, as the SDK's own flow does, and says so in
    /// the page when that cannot load. No globals: a `var parent` would replace `window.parent`,
    /// and the iframe could no longer answer the app's page.
    static func relayFrame(nonce: String) -> String {
        #"""
        <!DOCTYPE html>
        <meta charset="utf-8">
        <title>authemu helper iframe</title>
        <body>
        <p id="status">authemu helper iframe: loading https://apis.google.com/js/api.js…</p>
        <script nonce="\#(nonce)">
        (function () {
          var query = new URLSearchParams(location.search);
          var apiKey = query.get('apiKey');
          var appName = query.get('appName');
          var storageKey = apiKey + ':' + appName;
          var parentContainer = null;
          function showProblem(message) {
            var status = document.getElementById('status');
            status.textContent = 'authemu helper iframe: ' + message;
            status.style.color = '#b00020';
            if (window.console) console.error('authemu helper iframe: ' + message);
          }
          function appOrigin() {
            if (location.ancestorOrigins && location.ancestorOrigins.length) return location.ancestorOrigins[0];
            try { return new URL(document.referrer).origin; } catch (e) { return ''; }
          }
          window.addEventListener('message', function (e) {
            if (!e.data || typeof e.data !== 'object' || e.data.eventType !== 'sendAuthEvent') return;
            if (!e.data.data || e.data.data.storageKey !== storageKey) return;
            if (parentContainer) {
              send(e.data.data.authEvent);
            } else {
              sessionStorage['firebase:redirectEvent:' + storageKey] = JSON.stringify(e.data.data.authEvent);
            }
          });
          function send(authEvent) {
            parentContainer.send('authEvent', {type: 'authEvent',
                                 authEvent: authEvent || {type: 'unknown', error: {code: 'auth/no-auth-event'}}},
                                 function () {}, gapi.iframes.CROSS_ORIGIN_IFRAMES_FILTER);
          }
          // A redirect result the sign-in page left with the daemon for this app; taken once.
          function takeFromDaemon(then) {
            var request = new XMLHttpRequest();
            request.open('POST', '/emulator/auth/redirectEvents:take');
            request.setRequestHeader('Content-Type', 'application/json');
            request.onloadend = function () {
              var event = null;
              try { event = request.status === 200 ? JSON.parse(request.responseText).authEvent : null; } catch (e) {}
              then(event);
            };
            request.send(JSON.stringify({apiKey: apiKey, appName: appName, appOrigin: appOrigin()}));
          }
          function start() {
            parentContainer = gapi.iframes.getContext().getParentIframe();
            parentContainer.register('webStorageSupport', function () {
              return {status: 'ACK', webStorageSupport: true};
            }, gapi.iframes.CROSS_ORIGIN_IFRAMES_FILTER);
            document.getElementById('status').textContent = 'authemu helper iframe: ready.';
            var stored = sessionStorage['firebase:redirectEvent:' + storageKey];
            delete sessionStorage['firebase:redirectEvent:' + storageKey];
            takeFromDaemon(function (kept) { send(stored ? JSON.parse(stored) : kept); });
          }
          window.gapi_onload = function () {
            gapi.load('gapi.iframes', {callback: start, timeout: 10000, ontimeout: function () {
              showProblem('gapi.iframes did not load from apis.google.com within 10 s.');
            }});
          };
          var script = document.createElement('script');
          script.src = 'https://apis.google.com/js/api.js';
          script.onerror = function () {
            showProblem('https://apis.google.com/js/api.js could not be loaded (offline?). Popup and redirect ' +
                        'sign-in need it in this iframe and in the app\'s page.');
          };
          document.head.appendChild(script);
        })();
        </script>
        """#
    }
}

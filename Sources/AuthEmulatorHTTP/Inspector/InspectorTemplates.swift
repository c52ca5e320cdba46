/// The inspector's pages as Mustache templates (hummingbird-project/swift-mustache, which escapes
/// every `{{value}}` for HTML). They are compiled into the binary, so the .deb ships no files for
/// them; the library is parsed on the first inspector request, not at start-up.
enum InspectorTemplates {
    static let all: [String: String] = [
        "layout": layout, "overview": overview, "users": users, "user": user, "messages": messages,
        "login": login, "confirm": confirm, "problem": problem, "smsTable": smsTable, "oobTable": oobTable,
        "config": config, "totpAdded": totpAdded, "tools": tools,
    ]

    static let layout = #"""
        <!DOCTYPE html>
        <html lang="en">
        <head>
        <meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <title>{{title}} · authemu inspector</title>
        <link rel="icon" href="data:,">
        <link rel="stylesheet" href="/emulator/ui/assets/inspector.css">
        <script src="/emulator/ui/assets/inspector.js" defer></script>
        </head>
        <body data-scope-api="{{scopeApi}}">
        <header class="top">
        <a class="brand" href="/emulator/ui/">authemu</a>
        {{#scopePath}}
        <nav aria-label="Pages of {{scopeLabel}}">
        <span class="scope" data-testid="scope">{{scopeLabel}}</span>
        <a href="{{scopePath}}/users">Users</a>
        <a href="{{scopePath}}/messages">Messages</a>
        <a href="{{scopePath}}/config">Settings</a>
        <a href="{{scopePath}}/tools">Tools</a>
        </nav>
        {{/scopePath}}
        {{#clock}}
        <span class="clock" data-testid="clock" title="authemu clock; offset {{offset}} s">Clock {{state}} {{#time}}<time datetime="{{iso}}" title="{{utc}}">{{utc}}</time>{{/time}}</span>
        {{/clock}}
        </header>
        <main>
        {{#notice}}<p class="notice" role="status" data-testid="notice">{{notice}}</p>{{/notice}}
        {{#error}}<p class="error" role="alert" data-testid="error">{{error}}</p>{{/error}}
        {{$content}}{{/content}}
        </main>
        </body>
        </html>
        """#

    static let overview = #"""
        {{<layout}}{{$content}}
        <h1>Projects</h1>
        <p class="hint">Every project and tenant the daemon has seen, 20 projects a page. Times show in your browser's zone (UTC on hover).</p>
        {{#paged}}<p class="hint" data-testid="page-position">{{paged}} · <a href="/emulator/ui/">first page</a></p>{{/paged}}
        {{#projects}}
        <section class="card">
        <h2>{{projectId}}</h2>
        <div class="table-wrap">
        <table class="cards">
        <thead><tr><th scope="col">Scope</th><th scope="col">Users</th><th scope="col">Pending SMS codes</th><th scope="col">Pages</th></tr></thead>
        <tbody>
        {{#scopes}}
        <tr data-testid="scope-row" data-scope="{{path}}">
        <td data-label="Scope">{{label}}</td><td data-label="Users">{{users}}</td><td data-label="Pending SMS codes">{{pendingCodes}}</td>
        <td data-label="Pages"><span><a href="{{path}}/users">users</a> · <a href="{{path}}/messages">messages</a></span></td>
        </tr>
        {{/scopes}}
        </tbody>
        </table>
        </div>
        {{#moreTenants}}<p><a href="{{moreTenants}}" data-testid="more-tenants">More tenants of {{projectId}}</a></p>{{/moreTenants}}
        </section>
        {{/projects}}
        {{#next}}<p><a class="next" href="{{next}}" data-testid="next-page">Next page</a></p>{{/next}}
        {{/content}}{{/layout}}
        """#

    static let users = #"""
        {{<layout}}{{$content}}
        <h1>Users</h1>
        <form method="get" role="search" class="search">
        <label for="q">Search by uid, email, phone number or display name (prefix)</label>
        <div class="row"><input id="q" name="q" type="search" value="{{query}}"><button type="submit">Search</button></div>
        </form>
        <div class="table-wrap">
        <table data-testid="users-table" class="cards">
        <thead><tr>
        <th scope="col">uid</th><th scope="col">Email</th><th scope="col">Phone</th><th scope="col">Display name</th>
        <th scope="col">Providers</th><th scope="col">Factors</th><th scope="col">Created</th>
        <th scope="col">Last sign-in</th><th scope="col">Disabled</th>
        </tr></thead>
        <tbody>
        {{#users}}
        <tr data-testid="user-row" data-uid="{{localId}}">
        <td data-label="uid"><a href="{{link}}">{{localId}}</a></td><td data-label="Email">{{email}}</td><td data-label="Phone">{{phoneNumber}}</td>
        <td data-label="Display name" data-testid="display-name">{{displayName}}</td><td data-label="Providers">{{providers}}</td><td data-label="Factors">{{factors}}</td>
        <td data-label="Created">{{#created}}<time datetime="{{iso}}" title="{{utc}}">{{utc}}</time>{{/created}}</td>
        <td data-label="Last sign-in">{{#lastSignIn}}<time datetime="{{iso}}" title="{{utc}}">{{utc}}</time>{{/lastSignIn}}</td>
        <td data-label="Disabled">{{#disabled}}yes{{/disabled}}</td>
        </tr>
        {{/users}}
        {{^users}}<tr><td colspan="9">No users{{#query}} whose uid, email, phone or display name starts with “{{query}}”{{/query}}.</td></tr>{{/users}}
        </tbody>
        </table>
        </div>
        {{#next}}<p><a class="next" href="{{next}}" data-testid="next-page">Next page</a></p>{{/next}}
        <details class="card" {{#openCreate}}open{{/openCreate}}>
        <summary>Create a user</summary>
        <form method="post" action="{{scopePath}}/users" class="stack">
        <input type="hidden" name="_csrf" value="{{csrf}}">
        <label for="new-email">Email</label><input id="new-email" name="email" type="email" value="{{form.email}}">
        <label for="new-password">Password</label><input id="new-password" name="password" type="text" autocomplete="off">
        <label for="new-phone">Phone number (E.164)</label><input id="new-phone" name="phoneNumber" value="{{form.phoneNumber}}">
        <label for="new-name">Display name</label><input id="new-name" name="displayName" value="{{form.displayName}}">
        <label class="check"><input type="checkbox" name="emailVerified" value="true"> Email verified</label>
        <label for="new-claims">Custom claims (JSON object)</label><textarea id="new-claims" name="customClaims" rows="3">{{form.customClaims}}</textarea>
        <button type="submit" data-action="create-user">Create user</button>
        </form>
        </details>
        <form method="post" action="{{scopePath}}/users/clear" class="danger">
        <input type="hidden" name="_csrf" value="{{csrf}}">
        <button type="submit" data-action="clear-users">Delete every user of {{scopeLabel}}…</button>
        </form>
        {{/content}}{{/layout}}
        """#

    static let user = #"""
        {{<layout}}{{$content}}
        <h1>{{#displayName}}{{displayName}} · {{/displayName}}<span class="mono">{{localId}}</span></h1>
        <section class="card">
        <h2>Profile</h2>
        <dl class="grid">
        <dt>uid</dt><dd class="mono" data-testid="uid">{{localId}}</dd>
        <dt>Email</dt><dd>{{email}}</dd>
        <dt>Email verified</dt><dd data-testid="email-verified">{{#emailVerified}}yes{{/emailVerified}}{{^emailVerified}}no{{/emailVerified}}</dd>
        <dt>Phone</dt><dd>{{phoneNumber}}</dd>
        <dt>Display name</dt><dd data-testid="display-name">{{displayName}}</dd>
        <dt>Photo URL</dt><dd>{{photoUrl}}</dd>
        <dt>Disabled</dt><dd data-testid="disabled">{{#disabled}}yes{{/disabled}}{{^disabled}}no{{/disabled}}</dd>
        <dt>Created</dt><dd>{{#created}}<time datetime="{{iso}}" title="{{utc}}">{{utc}}</time>{{/created}}</dd>
        <dt>Last sign-in</dt><dd>{{#lastSignIn}}<time datetime="{{iso}}" title="{{utc}}">{{utc}}</time>{{/lastSignIn}}</dd>
        <dt>Valid since</dt><dd>{{#validSince}}<time datetime="{{iso}}" title="{{utc}}">{{utc}}</time>{{/validSince}}</dd>
        </dl>
        <details id="edit-user" {{#editError}}open{{/editError}}>
        <summary>Edit</summary>
        {{#editError}}<p class="error" role="alert" data-testid="edit-error">{{editError}}</p>{{/editError}}
        <form method="post" action="{{userPath}}/edit" class="stack">
        <input type="hidden" name="_csrf" value="{{csrf}}">
        <label for="edit-email">Email</label><input id="edit-email" name="email" type="email" value="{{email}}">
        <label for="edit-phone">Phone number (E.164)</label><input id="edit-phone" name="phoneNumber" value="{{phoneNumber}}">
        <label for="edit-name">Display name</label><input id="edit-name" name="displayName" value="{{displayName}}">
        <label for="edit-photo">Photo URL</label><input id="edit-photo" name="photoUrl" type="url" value="{{photoUrl}}">
        <label for="edit-password">New password (empty: unchanged)</label><input id="edit-password" name="password" type="text" autocomplete="off">
        <label class="check"><input type="checkbox" name="emailVerified" value="true" {{#emailVerified}}checked{{/emailVerified}}> Email verified</label>
        <label for="edit-claims">Custom claims (JSON object)</label><textarea id="edit-claims" name="customClaims" rows="3" class="mono">{{claims}}</textarea>
        <button type="submit" data-action="edit-user">Save</button>
        </form>
        </details>
        <div class="actions">
        <form method="post" action="{{userPath}}/{{#disabled}}enable{{/disabled}}{{^disabled}}disable{{/disabled}}">
        <input type="hidden" name="_csrf" value="{{csrf}}">
        <button type="submit" data-action="{{#disabled}}enable-user{{/disabled}}{{^disabled}}disable-user{{/disabled}}">{{#disabled}}Enable{{/disabled}}{{^disabled}}Disable{{/disabled}}</button>
        </form>
        <form method="post" action="{{userPath}}/revoke">
        <input type="hidden" name="_csrf" value="{{csrf}}">
        <button type="submit" data-action="revoke-sessions">Revoke sessions</button>
        </form>
        <form method="post" action="{{userPath}}/delete" class="danger">
        <input type="hidden" name="_csrf" value="{{csrf}}">
        <button type="submit" data-action="delete-user">Delete…</button>
        </form>
        </div>
        </section>
        <section class="card">
        <h2>Providers</h2>
        <ul>{{#providers}}<li><b>{{providerId}}</b> <span class="mono">{{rawId}}</span> {{email}}</li>{{/providers}}</ul>
        {{^providers}}<p>None.</p>{{/providers}}
        <h2>Custom claims</h2>
        <pre data-testid="custom-claims">{{claims}}</pre>
        </section>
        <section class="card">
        <h2>Second factors</h2>
        <ul class="factors">
        {{#factors}}
        <li data-testid="factor" data-enrollment="{{mfaEnrollmentId}}">
        <b>{{kind}}</b> {{displayName}} <span class="mono">{{phoneInfo}}</span>
        {{#totp}}<span class="totp">code <output data-testid="totp-code" data-local-id="{{localId}}" data-enrollment="{{mfaEnrollmentId}}">{{code}}</output>
        · <output data-testid="totp-seconds">{{seconds}}</output> s left</span>{{/totp}}
        {{#passkey}}<span class="mono">{{credentialId}}</span>{{/passkey}}
        {{^passkey}}
        <form method="post" action="{{userPath}}/remove-factor" class="inline">
        <input type="hidden" name="_csrf" value="{{csrf}}">
        <input type="hidden" name="mfaEnrollmentId" value="{{mfaEnrollmentId}}">
        <button type="submit" class="small" data-action="remove-factor">Remove</button>
        </form>
        {{/passkey}}
        </li>
        {{/factors}}
        </ul>
        {{^factors}}<p>None.</p>{{/factors}}
        <details id="add-factor">
        <summary>Add a second factor</summary>
        <div class="actions">
        <form method="post" action="{{userPath}}/add-sms" class="stack">
        <input type="hidden" name="_csrf" value="{{csrf}}">
        <label for="factor-phone">Phone number (E.164)</label><input id="factor-phone" name="phoneNumber" required>
        <label for="factor-sms-name">Name</label><input id="factor-sms-name" name="displayName">
        <button type="submit" data-action="add-sms-factor">Add an SMS factor</button>
        </form>
        <form method="post" action="{{userPath}}/add-totp" class="stack">
        <input type="hidden" name="_csrf" value="{{csrf}}">
        <label for="factor-totp-name">Name</label><input id="factor-totp-name" name="displayName">
        <button type="submit" data-action="add-totp-factor">Add a TOTP factor</button>
        </form>
        </div>
        </details>
        </section>
        <section class="card">
        <h2>SMS messages</h2>
        {{>smsTable}}
        <h2>Email action links</h2>
        {{>oobTable}}
        </section>
        {{/content}}{{/layout}}
        """#

    static let smsTable = #"""
        <div class="table-wrap">
        <table>
        <thead><tr><th scope="col">Sent</th><th scope="col">Phone</th><th scope="col">Code</th><th scope="col">Purpose</th><th scope="col">Status</th></tr></thead>
        <tbody id="sms-rows" data-after="{{lastSmsId}}" data-filter="{{smsFilter}}">
        {{#sms}}
        <tr data-testid="sms-row"><td><time datetime="{{sentAt}}" title="{{sentAt}}">{{sentAt}}</time></td><td>{{phoneNumber}}</td>
        <td><code data-testid="sms-code">{{code}}</code> <button type="button" class="copy" data-copy="{{code}}">Copy</button></td>
        <td>{{purpose}}</td><td>{{status}}</td></tr>
        {{/sms}}
        </tbody>
        </table>
        </div>
        """#

    static let oobTable = #"""
        <div class="table-wrap">
        <table>
        <thead><tr><th scope="col">Email</th><th scope="col">Kind</th><th scope="col">Link</th></tr></thead>
        <tbody id="oob-rows" data-email="{{oobEmail}}">
        {{#oob}}
        <tr data-code="{{oobCode}}"><td>{{email}}</td><td>{{requestType}}</td>
        <td><a data-testid="oob-link" href="{{oobLink}}" target="_blank" rel="noopener">open</a>
        <button type="button" class="copy" data-copy="{{oobLink}}">Copy</button></td></tr>
        {{/oob}}
        </tbody>
        </table>
        </div>
        """#

    static let messages = #"""
        {{<layout}}{{$content}}
        <h1>Messages</h1>
        <p class="hint">Newest first; new ones appear by themselves.</p>
        <form method="get" class="filters">
        <label for="f-phone">Phone</label><input id="f-phone" name="phoneNumber" value="{{filters.phoneNumber}}">
        <label for="f-email">Email</label><input id="f-email" name="email" value="{{filters.email}}">
        <label for="f-purpose">Purpose</label>
        <select id="f-purpose" name="purpose">{{#purposes}}<option value="{{value}}" {{#selected}}selected{{/selected}}>{{label}}</option>{{/purposes}}</select>
        <label for="f-status">Status</label>
        <select id="f-status" name="status">{{#statuses}}<option value="{{value}}" {{#selected}}selected{{/selected}}>{{label}}</option>{{/statuses}}</select>
        <button type="submit">Filter</button>
        </form>
        <section class="card">
        <h2>SMS</h2>
        {{>smsTable}}
        <form method="post" action="{{scopePath}}/messages/clear">
        <input type="hidden" name="_csrf" value="{{csrf}}">
        <button type="submit" data-action="clear-outbox">Clear the SMS outbox</button>
        </form>
        </section>
        <section class="card">
        <h2>Email action links</h2>
        {{>oobTable}}
        </section>
        <section class="card">
        <h2>APNs pushes</h2>
        <div class="table-wrap">
        <table>
        <thead><tr><th scope="col">Sent</th><th scope="col">Payload</th></tr></thead>
        <tbody id="apns-rows" data-after="{{lastPushId}}">
        {{#pushes}}<tr><td><time datetime="{{sentAt}}" title="{{sentAt}}">{{sentAt}}</time></td><td><pre data-testid="apns-push">{{payload}}</pre></td></tr>{{/pushes}}
        </tbody>
        </table>
        </div>
        </section>
        {{/content}}{{/layout}}
        """#

    static let login = #"""
        {{<layout}}{{$content}}
        <h1>Sign in to the inspector</h1>
        <p>This daemon listens beyond loopback, so the inspector needs its admin credential (the
        <code>admin_token</code> of its configuration; <code>owner</code> unless set).</p>
        <form method="post" action="/emulator/ui/login" class="stack">
        <input type="hidden" name="_csrf" value="{{csrf}}">
        <input type="hidden" name="next" value="{{next}}">
        <label for="token">Admin token</label><input id="token" name="token" type="password" autocomplete="current-password" required>
        <button type="submit" data-action="login">Sign in</button>
        </form>
        {{/content}}{{/layout}}
        """#

    static let confirm = #"""
        {{<layout}}{{$content}}
        <h1>{{question}}</h1>
        <p>{{detail}}</p>
        <form method="post" action="{{action}}" class="actions">
        <input type="hidden" name="_csrf" value="{{csrf}}">
        <input type="hidden" name="confirm" value="yes">
        <button type="submit" class="danger-button" data-action="confirm">{{verb}}</button>
        <a href="{{back}}">Cancel</a>
        </form>
        {{/content}}{{/layout}}
        """#

    static let problem = #"""
        {{<layout}}{{$content}}
        <h1>{{heading}}</h1>
        <p><a href="/emulator/ui/">Back to the projects</a></p>
        {{/content}}{{/layout}}
        """#

    static let config = #"""
        {{<layout}}{{$content}}
        <h1>Settings</h1>
        <p class="hint">Saved through the config API (the same validation and errors as <code>PATCH …/config</code>).</p>
        <section class="card" id="test-phone-numbers">
        <h2>Test phone numbers</h2>
        {{#numbersError}}<p class="error" role="alert" data-testid="config-error">{{numbersError}}</p>{{/numbersError}}
        <form method="post" action="{{scopePath}}/config/test-phone-numbers" class="stack">
        <input type="hidden" name="_csrf" value="{{csrf}}">
        <label for="test-numbers">One per line: the number (E.164), a space, its fixed code</label>
        <textarea id="test-numbers" name="numbers" rows="4" spellcheck="false">{{testNumbers}}</textarea>
        <button type="submit" data-action="save-test-numbers">Save test phone numbers</button>
        </form>
        </section>
        {{#sections}}
        <section class="card" id="{{key}}">
        <h2>{{title}}</h2>
        {{#error}}<p class="error" role="alert" data-testid="config-error">{{error}}</p>{{/error}}
        <form method="post" action="{{scopePath}}/config" class="stack wide">
        <input type="hidden" name="_csrf" value="{{csrf}}">
        <input type="hidden" name="section" value="{{key}}">
        <label for="section-{{key}}"><code>{{key}}</code> as JSON</label>
        <textarea id="section-{{key}}" name="value" rows="{{rows}}" spellcheck="false" class="mono">{{text}}</textarea>
        <button type="submit" data-action="save-config">Save</button>
        </form>
        </section>
        {{/sections}}
        {{/content}}{{/layout}}
        """#

    static let totpAdded = #"""
        {{<layout}}{{$content}}
        <h1>TOTP factor added</h1>
        <section class="card">
        <p>Scan the code with an authenticator app, or enter the secret. The secret is shown here once.</p>
        <img data-testid="totp-qr" class="qr" src="{{qr}}" width="240" height="240" alt="QR code of {{uri}}">
        <dl class="grid">
        <dt>Secret</dt><dd><code data-testid="totp-secret">{{secret}}</code> <button type="button" class="copy" data-copy="{{secret}}">Copy</button></dd>
        <dt>URI</dt><dd><code data-testid="totp-uri">{{uri}}</code> <button type="button" class="copy" data-copy="{{uri}}">Copy</button></dd>
        <dt>Code now</dt><dd><output data-testid="totp-code" data-local-id="{{localId}}" data-enrollment="{{mfaEnrollmentId}}">{{code}}</output>
        · <output data-testid="totp-seconds">{{seconds}}</output> s left</dd>
        </dl>
        <p><a href="{{userPath}}">Back to the user</a></p>
        </section>
        {{/content}}{{/layout}}
        """#

    static let tools = #"""
        {{<layout}}{{$content}}
        <h1>Tools</h1>
        <section class="card">
        <h2>App-verification credential</h2>
        <p>A token the SMS endpoints take while <code>emulatorSettings.appVerification</code> is <code>enforce</code>.</p>
        {{#credential}}
        <p>Token <code data-testid="app-credential">{{token}}</code> <button type="button" class="copy" data-copy="{{token}}">Copy</button>
        ({{kind}}, {{#valid}}accepted{{/valid}}{{^valid}}refused when used{{/valid}})</p>
        {{/credential}}
        <form method="post" action="{{scopePath}}/tools/credential" class="stack">
        <input type="hidden" name="_csrf" value="{{csrf}}">
        <label for="credential-kind">Kind</label>
        <select id="credential-kind" name="kind">{{#kinds}}<option value="{{.}}">{{.}}</option>{{/kinds}}</select>
        <label class="check"><input type="checkbox" name="valid" value="true" checked> Valid (untick for one that fails)</label>
        <button type="submit" data-action="mint-credential">Mint a credential</button>
        </form>
        </section>
        <section class="card">
        <h2>Export and import</h2>
        <p><a href="{{scopePath}}/tools/export" download data-action="export">Download the users (accounts.json)</a>,
        in firebase-tools' export format (hashes, salts and TOTP secrets included).</p>
        <form method="post" action="{{scopePath}}/tools/import" class="stack wide">
        <input type="hidden" name="_csrf" value="{{csrf}}">
        <label for="import-file">An accounts.json file</label><input id="import-file" type="file" accept=".json,application/json">
        <label for="import-text">…or its JSON</label><textarea id="import-text" name="accounts" rows="6" class="mono" spellcheck="false"></textarea>
        <button type="submit" data-action="import">Import (users with the same uid are replaced)</button>
        </form>
        </section>
        {{#isProject}}
        <section class="card">
        <h2>Create a tenant</h2>
        <form method="post" action="{{scopePath}}/tools/tenant" class="stack">
        <input type="hidden" name="_csrf" value="{{csrf}}">
        <label for="tenant-name">Display name</label><input id="tenant-name" name="displayName" required>
        <button type="submit" data-action="create-tenant">Create the tenant</button>
        </form>
        </section>
        {{/isProject}}
        {{/content}}{{/layout}}
        """#
}

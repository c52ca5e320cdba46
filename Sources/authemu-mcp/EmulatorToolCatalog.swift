import MCP

/// The tools `authemu mcp` offers: names, one-line descriptions and JSON schemas of their arguments.
extension EmulatorTools {
    static let catalog: [Tool] = [
        tool(
            "list_users", "List the project's accounts in uid order, one page at a time.",
            [
                "maxResults": integer("Page size, 1-1000 (default 100).", 1...1000),
                "pageToken": string("nextPageToken of the previous page."),
            ]),
        tool(
            "get_user", "Get one account by uid, email or phone number (give exactly one).",
            [
                "uid": string("The account's localId."), "email": string("Its email address."),
                "phoneNumber": string("Its E.164 phone number."),
            ]),
        tool(
            "create_user", "Create an account as the Admin SDK's createUser does; returns its uid.",
            [
                "email": string("Email address."), "password": string("Password (at least 6 characters)."),
                "phoneNumber": string("E.164 phone number."), "displayName": string("Display name."),
                "emailVerified": boolean("Whether the email is verified (default false)."),
                "uid": string("The uid to use (default: a new one)."),
            ]),
        tool("delete_user", "Delete one account by uid.", ["uid": string("The account's localId.")], required: ["uid"]),
        tool(
            "latest_sms_code", "The newest pending SMS code, waiting for one to be sent (codes are never texted).",
            [
                "phoneNumber": string("Only SMS to this E.164 number."),
                "purpose": string(
                    "Only this purpose: SIGN_IN_OR_SIGN_UP, MFA_SIGN_IN, MFA_ENROLLMENT or PHONE_UPDATE."),
                "waitSeconds": number("How long to wait for one, 0-30 (default 10).", 0...30),
            ]),
        tool(
            "totp_code",
            "The current TOTP code at the daemon's clock: of a shared secret, or of a user's enrolled factor.",
            [
                "secret": string("The base32 sharedSecretKey of mfaEnrollment:start."),
                "uid": string("A user with an enrolled TOTP factor (instead of secret)."),
                "enrollmentId": string("Which of the user's TOTP factors (default: the first)."),
            ]),
        tool(
            "email_action_links", "The email actions sent (verification, password reset, sign-in links), oldest first.",
            ["email": string("Only those to this address.")]),
        tool("apns_pushes", "The silent APNs pushes the phone path sent to iOS devices, oldest first.", [:]),
        tool(
            "set_test_phone_numbers",
            "Replace the test phone numbers: each number signs in with its fixed code, no SMS sent.",
            [
                "numbers": .object([
                    "type": "object", "description": "E.164 number to its 6-digit code.",
                    "additionalProperties": .object(["type": "string"]),
                ])
            ],
            required: ["numbers"]),
        tool(
            "set_mfa", "Turn second factors on or off: SMS, TOTP (with its window of adjacent 30 s intervals).",
            [
                "sms": boolean("SMS second factors (default true)."),
                "totp": boolean("TOTP second factors (default false)."),
                "adjacentIntervals": integer("TOTP codes accepted either side of now, 0-10 (default 5).", 0...10),
            ]),
        tool(
            "advance_clock", "Move the daemon's clock forward (or back, negative) so tokens, codes and links expire.",
            ["seconds": number("Seconds to move by.", nil)], required: ["seconds"]),
        tool(
            "freeze_clock",
            "Stop the daemon's clock, so stored times and token claims repeat exactly; advance_clock still moves it.",
            ["time": string("RFC 3339 instant to stand at, e.g. 2030-01-01T00:00:00Z (default: now).")]),
        tool("resume_clock", "Let a frozen clock run again from the instant it stands at.", [:]),
        tool(
            "import_accounts",
            "Load accounts into the running daemon (an export's accounts.json users; firebase-tools fakeHash passwords work), replacing those with the same uid; optionally the project's config.json first.",
            [
                "users": .object([
                    "type": "array", "items": .object(["type": "object"]),
                    "description": "User records as accounts.json holds them (localId, email, passwordHash, …).",
                ]),
                "config": .object([
                    "type": "object",
                    "description":
                        "config.json: signIn.allowDuplicateEmails, emailPrivacyConfig.enableImprovedEmailPrivacy.",
                ]),
            ], required: ["users"]),
        tool(
            "reset_project",
            "Delete every account, empty the SMS and APNs outboxes and put the clock back to real time; settings stay.",
            [:]),
    ]

    private static func tool(
        _ name: String, _ description: String, _ properties: [String: Value], required: [String] = []
    ) -> Tool {
        var schema: [String: Value] = [
            "type": "object", "properties": .object(properties), "additionalProperties": false,
        ]
        if !required.isEmpty { schema["required"] = .array(required.map { .string($0) }) }
        return Tool(name: name, description: description, inputSchema: .object(schema))
    }

    private static func string(_ description: String) -> Value {
        .object(["type": "string", "description": .string(description)])
    }

    private static func boolean(_ description: String) -> Value {
        .object(["type": "boolean", "description": .string(description)])
    }

    private static func integer(_ description: String, _ range: ClosedRange<Int>) -> Value {
        .object([
            "type": "integer", "description": .string(description), "minimum": .int(range.lowerBound),
            "maximum": .int(range.upperBound),
        ])
    }

    private static func number(_ description: String, _ range: ClosedRange<Int>?) -> Value {
        var schema: [String: Value] = ["type": "number", "description": .string(description)]
        if let range {
            schema["minimum"] = .int(range.lowerBound)
            schema["maximum"] = .int(range.upperBound)
        }
        return .object(schema)
    }
}

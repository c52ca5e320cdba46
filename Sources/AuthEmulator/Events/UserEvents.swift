import Foundation

extension Emulator {
    /// Records that `user` was made (a new account from any sign-up or first sign-in path, not an
    /// import): its `user.create` event leaves once the write commits.
    func recordCreated(_ tx: any StoreTransaction, _ user: UserRecord, scope: Scope) {
        tx.record(AuthEvent(.create, user: user, scope: scope, at: clock.now()))
    }

    /// Records that `user`, as it was, was deleted (by a client, an admin or `batchDelete`; not
    /// by a reset or a tenant's deletion, as firebase-tools).
    func recordDeleted(_ tx: any StoreTransaction, _ user: UserRecord, scope: Scope) {
        tx.record(AuthEvent(.delete, user: user, scope: scope, at: clock.now()))
    }
}

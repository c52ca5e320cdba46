/// `map` and `compactMap` for transforms that read the store (transaction calls are `async`), one
/// element after the other, in order.
extension Sequence {
    public func asyncMap<T>(_ transform: (Element) async throws -> T) async rethrows -> [T] {
        var result: [T] = []
        result.reserveCapacity(underestimatedCount)
        for element in self { result.append(try await transform(element)) }
        return result
    }

    public func asyncCompactMap<T>(_ transform: (Element) async throws -> T?) async rethrows -> [T] {
        var result: [T] = []
        for element in self {
            guard let value = try await transform(element) else { continue }
            result.append(value)
        }
        return result
    }
}

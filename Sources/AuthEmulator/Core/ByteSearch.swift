extension [UInt8] {
    /// Whether `needle` occurs in these bytes (a plain scan; the inputs are a few hundred bytes).
    @inlinable
    public func contains(subsequence needle: [UInt8]) -> Bool {
        guard let first = needle.first, needle.count <= count else { return needle.isEmpty }
        var index = 0
        while index <= count - needle.count {
            if self[index] == first, self[index..<(index + needle.count)].elementsEqual(needle) { return true }
            index += 1
        }
        return false
    }
}

/// Keys ordered from least to most recently used, each with a size in bytes: the bookkeeping of
/// both cache tiers. Every operation is O(1) (a doubly linked list threaded through a dictionary).
struct LRUIndex<Key: Hashable & Sendable>: Sendable {
    private struct Node: Sendable {
        var size: Int
        var older: Key?
        var newer: Key?
    }

    private var nodes: [Key: Node] = [:]
    private var oldest: Key?
    private var newest: Key?
    /// The sum of the sizes of all keys.
    private(set) var totalSize = 0

    /// How many keys are held.
    var count: Int { nodes.count }

    /// Whether `key` is held.
    func contains(_ key: Key) -> Bool { nodes[key] != nil }

    /// Adds `key` (or updates its size) and makes it the most recently used.
    mutating func touch(_ key: Key, size: Int) {
        remove(key)
        nodes[key] = Node(size: size, older: newest, newer: nil)
        if let newest { nodes[newest]?.newer = key }
        newest = key
        if oldest == nil { oldest = key }
        totalSize += size
    }

    /// Makes `key` the most recently used, keeping its size (nothing when absent).
    mutating func touch(_ key: Key) {
        guard let node = nodes[key] else { return }
        touch(key, size: node.size)
    }

    /// Removes `key` if held.
    mutating func remove(_ key: Key) {
        guard let node = nodes.removeValue(forKey: key) else { return }
        totalSize -= node.size
        if let older = node.older { nodes[older]?.newer = node.newer } else { oldest = node.newer }
        if let newer = node.newer { nodes[newer]?.older = node.older } else { newest = node.older }
    }

    /// Removes and returns least recently used keys until the total fits `capacity`.
    mutating func evict(toFit capacity: Int) -> [Key] {
        var evicted: [Key] = []
        while totalSize > capacity, let key = oldest {
            remove(key)
            evicted.append(key)
        }
        return evicted
    }
}

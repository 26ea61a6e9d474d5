import Foundation

// The disk tier: every method here runs on the cache's disk queue.
extension HTTPCache {
    /// Indexes the entry files found at start (oldest first, by modification date) and deletes
    /// temporary files left by a writer that was killed.
    func scanDirectory() {
        guard let directory else { return }
        let keys: [URLResourceKey] = [.fileSizeKey, .contentModificationDateKey]
        let files =
            (try? FileManager.default.contentsOfDirectory(
                at: directory, includingPropertiesForKeys: keys)) ?? []
        var found: [(name: String, size: Int, date: Date)] = []
        for file in files {
            let name = file.lastPathComponent
            if name.hasSuffix(Self.temporaryExtension) {
                unlink(file.path)
                continue
            }
            guard name.hasSuffix(Self.entryExtension) else { continue }
            let values = try? file.resourceValues(forKeys: Set(keys))
            found.append((name, values?.fileSize ?? 0, values?.contentModificationDate ?? .distantPast))
        }
        found.sort { $0.date < $1.date }
        let evicted = state.withLock { state -> [String] in
            for file in found {
                state.diskOrder.touch(file.name, size: file.size)
                state.names[String(file.name.prefix(32)), default: []].insert(file.name)
            }
            return state.diskOrder.evict(toFit: diskCapacity)
        }
        for name in evicted { deleteFile(name) }
    }

    /// The entry of `key` matching the request on disk (a complete one before a partial one),
    /// moved into memory; damaged files met on the way are deleted.
    func readFromDisk(_ key: CacheKey, request: HTTPHeaders) -> CacheEntry? {
        guard let directory else { return nil }
        let candidates = state.withLock { state in
            (state.names[key.resourceHash] ?? []).filter { state.diskOrder.contains($0) }
        }
        var partial: CacheEntry?
        for name in candidates.sorted() {
            let url = directory.appendingPathComponent(name)
            guard let data = try? Data(contentsOf: url) else {
                forget(name)
                continue
            }
            guard let (_, entry) = CacheEntryFile.decode(data, expectedKey: key.text) else {
                // Damaged, or another key's file under a colliding name: never served.
                if CacheEntryFile.decode(data) == nil { deleteFile(name) }
                continue
            }
            guard CacheVary.matches(entry.vary, request: request) else { continue }
            state.withLock { state in
                state.diskOrder.touch(name)
                state.keepInMemory(
                    StoredEntry(key: key, entry: entry), name: name, capacity: memoryCapacity, hasDisk: true)
            }
            // A complete response is preferred: a partial one answers only when there is none.
            if entry.statusCode == 206 {
                partial = partial ?? entry
                continue
            }
            return entry
        }
        return partial
    }

    /// Writes an entry file: to a temporary file first, then renamed over the old one, so a
    /// reader (or a later run) sees the old file or the new one, never a part. A response that
    /// sets cookies stays in memory only (its older file, if any, is deleted): cookies are never
    /// written to the cache's files.
    func writeToDisk(_ entry: CacheEntry, key: CacheKey, name: String) {
        guard let directory else { return }
        guard entry.headers["Set-Cookie"] == nil else {
            unlink(directory.appendingPathComponent(name).path)
            state.withLock { $0.diskOrder.remove(name) }
            return
        }
        let data = CacheEntryFile.encode(key: key.text, entry: entry)
        guard data.count <= diskCapacity / 4 else {
            deleteFile(name)
            return
        }
        let final = directory.appendingPathComponent(name)
        let temporary = directory.appendingPathComponent(
            name + "." + UUID().uuidString + Self.temporaryExtension)
        guard Self.writeFile(data, to: temporary.path), rename(temporary.path, final.path) == 0 else {
            unlink(temporary.path)
            return
        }
        let evicted = state.withLock { state -> [String] in
            // Invalidated meanwhile: the write is dropped.
            guard state.names[key.resourceHash]?.contains(name) == true else { return [name] }
            state.diskOrder.touch(name, size: data.count)
            return state.diskOrder.evict(toFit: diskCapacity)
        }
        for evictedName in evicted { deleteFile(evictedName) }
    }

    /// Deletes an entry file and forgets it.
    func deleteFile(_ name: String) {
        if let directory { unlink(directory.appendingPathComponent(name).path) }
        forget(name)
    }

    /// Forgets an entry on disk (also in memory when it is no longer on disk either).
    private func forget(_ name: String) {
        state.withLock { state in
            state.diskOrder.remove(name)
            if state.memory[name] == nil {
                let hash = String(name.prefix(32))
                state.names[hash]?.remove(name)
                if state.names[hash]?.isEmpty == true { state.names[hash] = nil }
            }
        }
    }

    /// The names of the entry and temporary files in the directory.
    func fileNames() -> [String] {
        guard let directory else { return [] }
        return ((try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []).filter {
            $0.hasSuffix(Self.entryExtension) || $0.hasSuffix(Self.temporaryExtension)
        }
    }

    /// Writes `data` to a new file readable by this user only, with plain POSIX calls: corelibs'
    /// `Data.write(to:)` and `FileManager.removeItem` cost milliseconds per small file here.
    /// - Returns: Whether every byte was written.
    static func writeFile(_ data: Data, to path: String) -> Bool {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        return data.withUnsafeBytes { buffer -> Bool in
            guard let base = buffer.baseAddress else { return true }
            var offset = 0
            while offset < buffer.count {
                let written = write(descriptor, base + offset, buffer.count - offset)
                if written < 0 && errno == EINTR { continue }
                guard written > 0 else { return false }
                offset += written
            }
            return true
        }
    }
}

import Foundation
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// One file on disk behind `/static/{size}`: `size` bytes of `DemoFileContent` (version 0), the
/// same bytes as `/files/{size}`.
///
/// The file is unlinked as soon as it is created and only its descriptor is kept: nothing is left
/// in the temporary folder when the server exits, however it exits. It is never closed (the server
/// keeps it for its whole life, to serve it again).
final class StaticFile: Sendable {
    /// A descriptor open for reading on the file (shared: read only with offsets, never `read(2)`).
    let descriptor: CInt
    /// The file's length in bytes.
    let size: Int64

    /// How much is generated and written at a time.
    static let chunkSize = 4 << 20

    private init(descriptor: CInt, size: Int64) {
        self.descriptor = descriptor
        self.size = size
    }

    /// A file failed to be made or read.
    struct Failure: Error, CustomStringConvertible {
        /// What failed, with `errno`'s text.
        let description: String

        /// A failure of `operation`, described with the current `errno`.
        init(_ operation: String) {
            description = "\(operation): \(String(cString: strerror(errno)))"
        }
    }

    /// Writes `size` bytes of the demo content to a new file in `directory`, unlinks it and returns
    /// it open. Blocking: call it off the event loops.
    /// - Parameters:
    ///   - size: The file's length.
    ///   - directory: Where the file briefly has a name.
    /// - Returns: The file.
    /// - Throws: ``Failure`` when the file cannot be created or written.
    static func make(size: Int64, in directory: URL) throws(Failure) -> StaticFile {
        let path = directory.appendingPathComponent("formwork-static-\(size)-\(UUID().uuidString)").path
        let descriptor = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw Failure("open \(path)") }
        unlink(path)
        var buffer = [UInt8](repeating: 0, count: chunkSize)
        var offset: Int64 = 0
        while offset < size {
            let count = Int(min(Int64(chunkSize), size - offset))
            let written = buffer.withUnsafeMutableBytes { bytes in
                let chunk = UnsafeMutableRawBufferPointer(rebasing: bytes[0..<count])
                DemoFileContent.fill(chunk, from: UInt64(offset), version: 0)
                return writeAll(descriptor, UnsafeRawBufferPointer(chunk))
            }
            guard written else {
                let failure = Failure("write \(path)")
                close(descriptor)
                throw failure
            }
            offset += Int64(count)
        }
        return StaticFile(descriptor: descriptor, size: size)
    }

    /// Writes all of `bytes` to `descriptor`; `false` on an error.
    private static func writeAll(_ descriptor: CInt, _ bytes: UnsafeRawBufferPointer) -> Bool {
        var done = 0
        while done < bytes.count {
            let result = write(descriptor, bytes.baseAddress! + done, bytes.count - done)
            if result < 0, errno == EINTR { continue }
            guard result > 0 else { return false }
            done += result
        }
        return true
    }

    /// A new descriptor for the file, owned by the caller (for NIO's `FileRegion`, which closes
    /// its handle after use).
    /// - Returns: The new descriptor.
    /// - Throws: ``Failure`` when `dup` fails (e.g. too many open files).
    func duplicateDescriptor() throws(Failure) -> CInt {
        let copy = dup(descriptor)
        guard copy >= 0 else { throw Failure("dup") }
        return copy
    }

    /// Reads the file's bytes from `offset` into all of `buffer` with `pread`. Bytes past the end
    /// of the file, or after a read error, are left as zeros (the clients' content checks catch it).
    /// - Parameters:
    ///   - buffer: Where the bytes go.
    ///   - offset: The file offset of the first byte.
    func read(into buffer: UnsafeMutableRawBufferPointer, at offset: Int64) {
        var done = 0
        while done < buffer.count {
            let result = pread(
                descriptor, buffer.baseAddress! + done, buffer.count - done, off_t(offset) + off_t(done))
            if result < 0, errno == EINTR { continue }
            guard result > 0 else { break }
            done += result
        }
        if done < buffer.count {
            UnsafeMutableRawBufferPointer(rebasing: buffer[done...]).initializeMemory(
                as: UInt8.self, repeating: 0)
        }
    }
}

/// The files behind `/static/{size}`, one per size, each made once (on NIO's thread pool, so the
/// event loops never wait for the disk) and kept for the server's life.
final class StaticFiles: Sendable {
    /// The server's files.
    static let shared = StaticFiles(directory: FileManager.default.temporaryDirectory)

    /// Where files are created (and at once unlinked).
    let directory: URL
    /// The file of each size, made or being made. A failed one is removed, so a later request tries again.
    private let files = NIOLockedValueBox<[Int64: EventLoopFuture<StaticFile>]>([:])

    /// Files created in `directory`.
    /// - Parameter directory: A folder the server may write to.
    init(directory: URL) {
        self.directory = directory
    }

    /// The file of `size` bytes, made on first use.
    /// - Parameters:
    ///   - size: The file's length.
    ///   - eventLoop: The loop the returned future completes on.
    /// - Returns: The file, or the error that stopped it being made.
    func file(size: Int64, on eventLoop: any EventLoop) -> EventLoopFuture<StaticFile> {
        let directory = directory
        let (future, isNew) = files.withLockedValue { files in
            if let existing = files[size] { return (existing, false) }
            let made = NIOThreadPool.singleton.runIfActive(eventLoop: eventLoop) {
                try StaticFile.make(size: size, in: directory)
            }
            files[size] = made
            return (made, true)
        }
        if isNew {
            future.whenFailure { [files] _ in
                files.withLockedValue { $0[size] = nil }
            }
        }
        return future.hop(to: eventLoop)
    }
}

import Foundation

/// MIME types guessed from file extensions, for multipart file parts.
///
/// A small built-in table (no platform lookup, so Linux and Apple platforms agree) of the types
/// apps upload most: images, documents, text, audio, video and archives. Anything else is
/// `application/octet-stream`, which every server accepts as "some bytes".
enum MIMEType {
    /// The fallback for an unknown or missing extension.
    static let fallback = "application/octet-stream"

    /// The MIME type for a file extension (without the dot, any case), or ``fallback``.
    static func guess(forPathExtension pathExtension: String) -> String {
        table[pathExtension.lowercased()] ?? fallback
    }

    /// The MIME type for a file name's extension (`"photo.JPG"` → `image/jpeg`), or ``fallback``.
    static func guess(forFileName fileName: String) -> String {
        guard let dot = fileName.lastIndex(of: "."), dot != fileName.startIndex else { return fallback }
        return guess(forPathExtension: String(fileName[fileName.index(after: dot)...]))
    }

    /// Extension (lower case) → MIME type.
    static let table: [String: String] = [
        // Images
        "jpg": "image/jpeg", "jpeg": "image/jpeg", "png": "image/png", "gif": "image/gif",
        "webp": "image/webp", "heic": "image/heic", "heif": "image/heif", "bmp": "image/bmp",
        "tif": "image/tiff", "tiff": "image/tiff", "svg": "image/svg+xml", "ico": "image/vnd.microsoft.icon",
        "avif": "image/avif",
        // Text and data
        "txt": "text/plain", "text": "text/plain", "log": "text/plain", "md": "text/markdown",
        "csv": "text/csv", "tsv": "text/tab-separated-values", "html": "text/html", "htm": "text/html",
        "css": "text/css", "js": "text/javascript", "mjs": "text/javascript", "xml": "application/xml",
        "json": "application/json", "geojson": "application/geo+json", "yaml": "application/yaml",
        "yml": "application/yaml",
        // Documents
        "pdf": "application/pdf", "rtf": "application/rtf", "doc": "application/msword",
        "docx": "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
        "xls": "application/vnd.ms-excel",
        "xlsx": "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
        "ppt": "application/vnd.ms-powerpoint",
        "pptx": "application/vnd.openxmlformats-officedocument.presentationml.presentation",
        "key": "application/vnd.apple.keynote", "pages": "application/vnd.apple.pages",
        "numbers": "application/vnd.apple.numbers", "epub": "application/epub+zip",
        // Audio
        "mp3": "audio/mpeg", "m4a": "audio/mp4", "aac": "audio/aac", "wav": "audio/wav",
        "flac": "audio/flac", "ogg": "audio/ogg", "oga": "audio/ogg", "opus": "audio/opus",
        "caf": "audio/x-caf", "aiff": "audio/aiff", "aif": "audio/aiff",
        // Video
        "mp4": "video/mp4", "m4v": "video/x-m4v", "mov": "video/quicktime", "webm": "video/webm",
        "mkv": "video/x-matroska", "avi": "video/x-msvideo", "mpeg": "video/mpeg", "mpg": "video/mpeg",
        "3gp": "video/3gpp",
        // Archives and binaries
        "zip": "application/zip", "gz": "application/gzip", "tgz": "application/gzip",
        "tar": "application/x-tar", "bz2": "application/x-bzip2", "xz": "application/x-xz",
        "7z": "application/x-7z-compressed", "rar": "application/vnd.rar",
        "wasm": "application/wasm", "bin": fallback,
    ]
}

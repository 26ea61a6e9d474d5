// Temporary: replaced by the MIME table from the multipart work.
enum MIMEType {
    static func forPathExtension(_ ext: String) -> String { "application/octet-stream" }
}

/// The parameters of a request form: names to values, encoded by a ``ParameterEncoding``.
///
/// Supported values (anything else makes encoding throw a ``NetworkError`` of kind
/// ``NetworkError/Kind/parameterEncodingFailed``):
/// `String`, `Substring`, `Bool`, every integer type, `Double`, `Float`, `Decimal`,
/// `NSNumber`, `URL` (its `absoluteString`), `UUID` (`uuidString`), `Date` (ISO 8601 in UTC
/// with milliseconds, e.g. `2024-05-01T08:30:00.000Z`), `NSNull` (an empty query value, JSON
/// `null`), arrays and `[String: …]` dictionaries of these, and optionals of any of them.
/// A `nil` optional omits its key; inside an array it is skipped in a query and `null` in JSON.
public typealias Parameters = [String: any Sendable]

/// One parameter value sorted into the shapes the encoders know.
enum ParameterValue {
    /// A `nil` optional: the key is left out.
    case absent
    /// `NSNull`: an empty query value, or JSON `null`.
    case null
    case string(String)
    case bool(Bool)
    case integer(any BinaryInteger)
    /// A finite or non-finite binary floating-point number, already widened exactly.
    case double(Double)
    case decimal(Decimal)
    case array([Any])
    case dictionary([String: Any])
    /// A value of a type no encoder supports; carries the type's name.
    case unsupported(String)

    /// Sorts `value` into a ``ParameterValue``.
    ///
    /// `NSNumber` is checked first by its dynamic class, because on Linux a Swift `Int` or
    /// `Bool` also casts to `NSNumber` and an `NSNumber` also casts to `Bool`.
    init(_ value: Any) {
        // The common case first: a plain String (or an Optional holding one) takes every branch
        // below to the same `.string`, past casts that cost thousands of instructions on Linux.
        if let string = value as? String {
            self = .string(string)
            return
        }
        if let optional = value as? any OptionalParameter {
            guard let wrapped = optional.wrappedParameter else {
                self = .absent
                return
            }
            self.init(wrapped)
            return
        }
        if type(of: value) is NSNumber.Type, let number = value as? NSNumber {
            self.init(number: number)
            return
        }
        switch value {
        case let bool as Bool: self = .bool(bool)
        case let string as String: self = .string(string)
        case let substring as Substring: self = .string(String(substring))
        case let integer as any BinaryInteger: self = .integer(integer)
        case let double as Double: self = .double(double)
        // A Float keeps its own shortest form ("1.1"), not its exact binary value.
        case let float as Float: self = .double(Double("\(float)") ?? Double(float))
        case let float as CGFloat: self = .double(Double(float))
        case let decimal as Decimal: self = .decimal(decimal)
        case let url as URL: self = .string(url.absoluteString)
        case let uuid as UUID: self = .string(uuid.uuidString)
        case let date as Date: self = .string(date.formatted(Self.dateStyle))
        case is NSNull: self = .null
        case let array as [Any]: self = .array(array)
        case let dictionary as [String: Any]: self = .dictionary(dictionary)
        default: self = .unsupported(String(describing: type(of: value)))
        }
    }

    private init(number: NSNumber) {
        if let decimal = number as? NSDecimalNumber {
            self = .decimal(decimal.decimalValue)
            return
        }
        switch String(cString: number.objCType) {
        case "c" where number.int8Value == 0 || number.int8Value == 1:
            // Booleans are "c" on every platform (as is Int8 on Apple platforms: 0/1 read as Bool).
            self = .bool(number.boolValue)
        case "f":
            self = .double(Double("\(number.floatValue)") ?? number.doubleValue)
        case "d":
            self = .double(number.doubleValue)
        case "Q", "L", "I", "S", "C":
            self = .integer(number.uint64Value)
        default:
            self = .integer(number.int64Value)
        }
    }

    /// Appends a key or index to a display key path: `user` + `tags` → `user[tags]`.
    static func keyPath(_ path: String, appending component: String) -> String {
        path.isEmpty ? component : "\(path)[\(component)]"
    }

    /// The ISO 8601 form used for `Date` values, e.g. `2024-05-01T08:30:00.000Z`.
    static let dateStyle = Date.ISO8601FormatStyle(includingFractionalSeconds: true)
}

/// Lets a value held as `Any` be recognised as an `Optional` and unwrapped.
protocol OptionalParameter {
    /// The wrapped value, or `nil` for `.none`.
    var wrappedParameter: Any? { get }
}

extension Optional: OptionalParameter {
    var wrappedParameter: Any? {
        switch self {
        case .some(let wrapped): wrapped
        case .none: nil
        }
    }
}

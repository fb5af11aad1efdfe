#!/usr/bin/env python3
"""A Python gRPC client of RealtimeConfigGrpcService, for interoperability tests.

It uses grpcio (the C-core gRPC stack) and google.protobuf only; no generated stubs. The messages
are built at run time from a FileDescriptorProto written here by hand after docs/grpc.md
("Messages"), so the field numbers are checked independently of the
TypeScript code generated from packages/protocol/proto.

What it does, printing one JSON object per line on stdout:
  1. IsVersionExists for --service-id and --version (unless --version-id is given):
       {"rpc": "IsVersionExists", "versionId": "<uuid>" | null}
  2. GetConfig for --service-id and --version:
       {"rpc": "GetConfig", "entries": [<entry>, ...]}
  3. StartSubscribe for the version id, with --after (µs since the epoch) as the timestamp; every
     SubscriptionEvent received:
       {"rpc": "StartSubscribe", "events": [<entry>, ...]}
     and after --events of them, cancels the stream and prints {"done": <count>}.
An <entry> is {"key", "value" (null when unset), "generation", "timestamp" (µs), "type"}.
A failed call prints {"error": {"rpc", "code" (e.g. "NOT_FOUND"), "details"}} and exits with 3.

Debian: apt-get install python3-grpcio python3-protobuf; run with /usr/bin/python3.
"""

import argparse
import json
import sys

import grpc
from google.protobuf import descriptor_pb2, descriptor_pool, message_factory
from google.protobuf import timestamp_pb2, wrappers_pb2  # noqa: F401  (registers the well-known types)

PACKAGE = "konfigo.client"
SERVICE = f"/{PACKAGE}.RealtimeConfigGrpcService"

F = descriptor_pb2.FieldDescriptorProto
STRING, INT32, MESSAGE, ENUM = F.TYPE_STRING, F.TYPE_INT32, F.TYPE_MESSAGE, F.TYPE_ENUM
OPTIONAL, REPEATED = F.LABEL_OPTIONAL, F.LABEL_REPEATED
STRING_VALUE = ".google.protobuf.StringValue"
TIMESTAMP = ".google.protobuf.Timestamp"


def _add_fields(message, fields):
    for name, number, kind, type_name, label in fields:
        field = message.field.add(name=name, number=number, type=kind, label=label)
        if type_name:
            field.type_name = type_name


def _message(container, name, fields, nested=()):
    message = container.add(name=name)
    for nested_name, nested_fields in nested:
        _add_fields(message.nested_type.add(name=nested_name), nested_fields)
    _add_fields(message, fields)
    return message


def _entry_fields():
    """GetConfigResponse.ConfigEntry and SubscriptionEvent.ConfigEvent share their shape."""
    return [
        ("key", 1, STRING, None, OPTIONAL),
        ("value", 2, MESSAGE, STRING_VALUE, OPTIONAL),
        ("generation", 3, INT32, None, OPTIONAL),
        ("timestamp", 4, MESSAGE, TIMESTAMP, OPTIONAL),
        ("type", 5, ENUM, f".{PACKAGE}.ValueType", OPTIONAL),
    ]


def build_messages():
    proto = descriptor_pb2.FileDescriptorProto(
        name="konfigo/client/python_interop.proto",
        package=PACKAGE,
        syntax="proto3",
        dependency=["google/protobuf/timestamp.proto", "google/protobuf/wrappers.proto"],
    )
    value_type = proto.enum_type.add(name="ValueType")
    for number, name in enumerate(
        ["UNKNOWN", "STRING", "BOOLEAN", "DATE_TIME", "TIME_SPAN", "ENUM", "NUMBER", "ARRAY", "JSON"]
    ):
        value_type.value.add(name=f"VALUE_TYPE_{name}", number=number)

    _message(proto.message_type, "GetConfigRequest", [
        ("service_id", 1, STRING, None, OPTIONAL),
        ("version", 2, STRING, None, OPTIONAL),
    ])
    _message(
        proto.message_type,
        "GetConfigResponse",
        [("entries", 1, MESSAGE, f".{PACKAGE}.GetConfigResponse.ConfigEntry", REPEATED)],
        nested=[("ConfigEntry", _entry_fields())],
    )
    _message(proto.message_type, "IsVersionExistRequest", [
        ("service_id", 1, STRING, None, OPTIONAL),
        ("version", 2, STRING, None, OPTIONAL),
    ])
    _message(proto.message_type, "IsVersionExistResponse", [
        ("version_id", 1, MESSAGE, STRING_VALUE, OPTIONAL),
    ])
    _message(proto.message_type, "StartSubscribeRequest", [
        ("service_id", 1, STRING, None, OPTIONAL),
        ("version_id", 2, STRING, None, OPTIONAL),
        ("timestamp", 3, MESSAGE, TIMESTAMP, OPTIONAL),
    ])
    _message(
        proto.message_type,
        "SubscriptionEvent",
        [("events", 1, MESSAGE, f".{PACKAGE}.SubscriptionEvent.ConfigEvent", REPEATED)],
        nested=[("ConfigEvent", _entry_fields())],
    )

    pool = descriptor_pool.Default()
    pool.AddSerializedFile(proto.SerializeToString())

    def cls(name):
        descriptor = pool.FindMessageTypeByName(f"{PACKAGE}.{name}")
        if hasattr(message_factory, "GetMessageClass"):  # protobuf >= 4.22
            return message_factory.GetMessageClass(descriptor)
        return message_factory.MessageFactory(pool).GetPrototype(descriptor)

    return {name: cls(name) for name in [
        "GetConfigRequest", "GetConfigResponse", "IsVersionExistRequest", "IsVersionExistResponse",
        "StartSubscribeRequest", "SubscriptionEvent",
    ]}


def entry_json(entry):
    return {
        "key": entry.key,
        "value": entry.value.value if entry.HasField("value") else None,
        "generation": entry.generation,
        "timestamp": entry.timestamp.seconds * 1_000_000 + entry.timestamp.nanos // 1000
        if entry.HasField("timestamp") else None,
        "type": entry.type,
    }


def emit(obj):
    sys.stdout.write(json.dumps(obj, ensure_ascii=False) + "\n")
    sys.stdout.flush()


def fail(rpc, error):
    emit({"error": {"rpc": rpc, "code": error.code().name, "details": error.details()}})
    sys.exit(3)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--target", required=True, help="host:port of the server")
    parser.add_argument("--service-id", required=True)
    parser.add_argument("--version", required=True, help="version label, for IsVersionExists and GetConfig")
    parser.add_argument("--version-id", help="skip IsVersionExists and subscribe to this version id")
    parser.add_argument("--after", type=int, default=0, help="StartSubscribe timestamp, µs since the epoch")
    parser.add_argument("--events", type=int, default=1, help="SubscriptionEvents to read before stopping")
    parser.add_argument("--ca", help="PEM certificate to trust; TLS instead of h2c")
    parser.add_argument("--server-name", default="localhost", help="name to check the certificate against")
    parser.add_argument("--timeout", type=float, default=60.0, help="deadline of each call, seconds")
    args = parser.parse_args()

    m = build_messages()
    # A proxy from the environment must never be used for the loopback test server.
    options = [("grpc.enable_http_proxy", 0)]
    if args.ca:
        with open(args.ca, "rb") as f:
            credentials = grpc.ssl_channel_credentials(root_certificates=f.read())
        options.append(("grpc.ssl_target_name_override", args.server_name))
        channel = grpc.secure_channel(args.target, credentials, options=options)
    else:
        channel = grpc.insecure_channel(args.target, options=options)

    with channel:
        version_id = args.version_id
        if version_id is None:
            is_version_exists = channel.unary_unary(
                f"{SERVICE}/IsVersionExists",
                request_serializer=m["IsVersionExistRequest"].SerializeToString,
                response_deserializer=m["IsVersionExistResponse"].FromString,
            )
            try:
                found = is_version_exists(
                    m["IsVersionExistRequest"](service_id=args.service_id, version=args.version),
                    timeout=args.timeout,
                )
            except grpc.RpcError as error:
                fail("IsVersionExists", error)
            version_id = found.version_id.value if found.HasField("version_id") else None
            emit({"rpc": "IsVersionExists", "versionId": version_id})
            if version_id is None:
                return

        get_config = channel.unary_unary(
            f"{SERVICE}/GetConfig",
            request_serializer=m["GetConfigRequest"].SerializeToString,
            response_deserializer=m["GetConfigResponse"].FromString,
        )
        try:
            snapshot = get_config(m["GetConfigRequest"](service_id=args.service_id, version=args.version), timeout=args.timeout)
        except grpc.RpcError as error:
            fail("GetConfig", error)
        emit({"rpc": "GetConfig", "entries": [entry_json(e) for e in snapshot.entries]})

        start_subscribe = channel.unary_stream(
            f"{SERVICE}/StartSubscribe",
            request_serializer=m["StartSubscribeRequest"].SerializeToString,
            response_deserializer=m["SubscriptionEvent"].FromString,
        )
        request = m["StartSubscribeRequest"](service_id=args.service_id, version_id=version_id)
        request.timestamp.seconds = args.after // 1_000_000
        request.timestamp.nanos = (args.after % 1_000_000) * 1000
        stream = start_subscribe(request, timeout=args.timeout)
        received = 0
        try:
            for event in stream:
                emit({"rpc": "StartSubscribe", "events": [entry_json(e) for e in event.events]})
                received += 1
                if received >= args.events:
                    stream.cancel()
                    break
        except grpc.RpcError as error:
            fail("StartSubscribe", error)
        emit({"done": received})


if __name__ == "__main__":
    main()

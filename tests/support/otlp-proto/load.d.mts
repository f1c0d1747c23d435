import type protobuf from 'protobufjs';
export declare function exportTraceServiceRequest(): protobuf.Type;

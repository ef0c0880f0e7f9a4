/*eslint-disable block-scoped-var, id-length, no-control-regex, no-magic-numbers, no-prototype-builtins, no-redeclare, no-shadow, no-var, sort-vars*/
import $protobuf from "protobufjs/minimal.js";

const $Reader = $protobuf.Reader, $Writer = $protobuf.Writer, $util = $protobuf.util;

const $root = $protobuf.roots["rlfactory-gateway"] || ($protobuf.roots["rlfactory-gateway"] = {});

export const rlfactory = $root.rlfactory = (() => {

    const rlfactory = {};

    rlfactory.v1 = (function() {

        const v1 = {};

        v1.StartEpisodeRequest = (function() {

            function StartEpisodeRequest(properties) {
                if (properties)
                    for (let keys = Object.keys(properties), i = 0; i < keys.length; ++i)
                        if (properties[keys[i]] != null && keys[i] !== "__proto__")
                            this[keys[i]] = properties[keys[i]];
            }

            StartEpisodeRequest.prototype.server = "";
            StartEpisodeRequest.prototype.config_json = "";
            StartEpisodeRequest.prototype.ttl_ms = 0;

            StartEpisodeRequest.encode = function encode(message, writer, q) {
                if (!writer)
                    writer = $Writer.create();
                if (q === undefined)
                    q = 0;
                if (q > $util.recursionLimit)
                    throw Error("max depth exceeded");
                if (message.server != null && Object.hasOwnProperty.call(message, "server"))
                    writer.uint32(10).string(message.server);
                if (message.config_json != null && Object.hasOwnProperty.call(message, "config_json"))
                    writer.uint32(18).string(message.config_json);
                if (message.ttl_ms != null && Object.hasOwnProperty.call(message, "ttl_ms"))
                    writer.uint32(24).uint32(message.ttl_ms);
                return writer;
            };

            StartEpisodeRequest.decode = function decode(reader, length, error, long) {
                if (!(reader instanceof $Reader))
                    reader = $Reader.create(reader);
                if (long === undefined)
                    long = 0;
                if (long > $Reader.recursionLimit)
                    throw Error("maximum nesting depth exceeded");
                let end, message;
                if (length === undefined)
                    end = reader.len;
                else {
                    end = reader.pos + length;
                    if (end > reader.len)
                        throw RangeError("index out of range");
                    length = reader.len;
                    reader.len = end;
                }
                message = new $root.rlfactory.v1.StartEpisodeRequest();
                while (reader.pos < end) {
                    let tag = reader.uint32();
                    if (tag === error)
                        break;
                    switch (tag >>> 3) {
                    case 1: {
                            message.server = reader.string();
                            break;
                        }
                    case 2: {
                            message.config_json = reader.string();
                            break;
                        }
                    case 3: {
                            message.ttl_ms = reader.uint32();
                            break;
                        }
                    default:
                        reader.skipType(tag & 7, long);
                        break;
                    }
                }
                if (length !== undefined) {
                    if (reader.pos !== end)
                        throw RangeError("index out of range");
                    reader.len = length;
                }
                return message;
            };

            StartEpisodeRequest.fromObject = function fromObject(object, long) {
                if (object instanceof $root.rlfactory.v1.StartEpisodeRequest)
                    return object;
                if (!$util.isObject(object))
                    throw TypeError(".rlfactory.v1.StartEpisodeRequest: object expected");
                if (long === undefined)
                    long = 0;
                if (long > $util.recursionLimit)
                    throw Error("maximum nesting depth exceeded");
                let message = new $root.rlfactory.v1.StartEpisodeRequest();
                if (object.server != null)
                    message.server = String(object.server);
                if (object.config_json != null)
                    message.config_json = String(object.config_json);
                if (object.ttl_ms != null)
                    message.ttl_ms = object.ttl_ms >>> 0;
                return message;
            };

            StartEpisodeRequest.toObject = function toObject(message, options, q) {
                if (!options)
                    options = {};
                if (q === undefined)
                    q = 0;
                if (q > $util.recursionLimit)
                    throw Error("max depth exceeded");
                let object = {};
                if (options.defaults) {
                    object.server = "";
                    object.config_json = "";
                    object.ttl_ms = 0;
                }
                if (message.server != null && Object.hasOwnProperty.call(message, "server"))
                    object.server = message.server;
                if (message.config_json != null && Object.hasOwnProperty.call(message, "config_json"))
                    object.config_json = message.config_json;
                if (message.ttl_ms != null && Object.hasOwnProperty.call(message, "ttl_ms"))
                    object.ttl_ms = message.ttl_ms;
                return object;
            };

            StartEpisodeRequest.prototype.toJSON = function toJSON() {
                return this.constructor.toObject(this, $protobuf.util.toJSONOptions);
            };

            return StartEpisodeRequest;
        })();

        v1.StartEpisodeResponse = (function() {

            function StartEpisodeResponse(properties) {
                if (properties)
                    for (let keys = Object.keys(properties), i = 0; i < keys.length; ++i)
                        if (properties[keys[i]] != null && keys[i] !== "__proto__")
                            this[keys[i]] = properties[keys[i]];
            }

            StartEpisodeResponse.prototype.episode_id = "";

            StartEpisodeResponse.encode = function encode(message, writer, q) {
                if (!writer)
                    writer = $Writer.create();
                if (q === undefined)
                    q = 0;
                if (q > $util.recursionLimit)
                    throw Error("max depth exceeded");
                if (message.episode_id != null && Object.hasOwnProperty.call(message, "episode_id"))
                    writer.uint32(10).string(message.episode_id);
                return writer;
            };

            StartEpisodeResponse.decode = function decode(reader, length, error, long) {
                if (!(reader instanceof $Reader))
                    reader = $Reader.create(reader);
                if (long === undefined)
                    long = 0;
                if (long > $Reader.recursionLimit)
                    throw Error("maximum nesting depth exceeded");
                let end, message;
                if (length === undefined)
                    end = reader.len;
                else {
                    end = reader.pos + length;
                    if (end > reader.len)
                        throw RangeError("index out of range");
                    length = reader.len;
                    reader.len = end;
                }
                message = new $root.rlfactory.v1.StartEpisodeResponse();
                while (reader.pos < end) {
                    let tag = reader.uint32();
                    if (tag === error)
                        break;
                    switch (tag >>> 3) {
                    case 1: {
                            message.episode_id = reader.string();
                            break;
                        }
                    default:
                        reader.skipType(tag & 7, long);
                        break;
                    }
                }
                if (length !== undefined) {
                    if (reader.pos !== end)
                        throw RangeError("index out of range");
                    reader.len = length;
                }
                return message;
            };

            StartEpisodeResponse.fromObject = function fromObject(object, long) {
                if (object instanceof $root.rlfactory.v1.StartEpisodeResponse)
                    return object;
                if (!$util.isObject(object))
                    throw TypeError(".rlfactory.v1.StartEpisodeResponse: object expected");
                if (long === undefined)
                    long = 0;
                if (long > $util.recursionLimit)
                    throw Error("maximum nesting depth exceeded");
                let message = new $root.rlfactory.v1.StartEpisodeResponse();
                if (object.episode_id != null)
                    message.episode_id = String(object.episode_id);
                return message;
            };

            StartEpisodeResponse.toObject = function toObject(message, options, q) {
                if (!options)
                    options = {};
                if (q === undefined)
                    q = 0;
                if (q > $util.recursionLimit)
                    throw Error("max depth exceeded");
                let object = {};
                if (options.defaults)
                    object.episode_id = "";
                if (message.episode_id != null && Object.hasOwnProperty.call(message, "episode_id"))
                    object.episode_id = message.episode_id;
                return object;
            };

            StartEpisodeResponse.prototype.toJSON = function toJSON() {
                return this.constructor.toObject(this, $protobuf.util.toJSONOptions);
            };

            return StartEpisodeResponse;
        })();

        v1.ForkEpisodeRequest = (function() {

            function ForkEpisodeRequest(properties) {
                if (properties)
                    for (let keys = Object.keys(properties), i = 0; i < keys.length; ++i)
                        if (properties[keys[i]] != null && keys[i] !== "__proto__")
                            this[keys[i]] = properties[keys[i]];
            }

            ForkEpisodeRequest.prototype.episode_id = "";
            ForkEpisodeRequest.prototype.count = 0;

            ForkEpisodeRequest.encode = function encode(message, writer, q) {
                if (!writer)
                    writer = $Writer.create();
                if (q === undefined)
                    q = 0;
                if (q > $util.recursionLimit)
                    throw Error("max depth exceeded");
                if (message.episode_id != null && Object.hasOwnProperty.call(message, "episode_id"))
                    writer.uint32(10).string(message.episode_id);
                if (message.count != null && Object.hasOwnProperty.call(message, "count"))
                    writer.uint32(16).uint32(message.count);
                return writer;
            };

            ForkEpisodeRequest.decode = function decode(reader, length, error, long) {
                if (!(reader instanceof $Reader))
                    reader = $Reader.create(reader);
                if (long === undefined)
                    long = 0;
                if (long > $Reader.recursionLimit)
                    throw Error("maximum nesting depth exceeded");
                let end, message;
                if (length === undefined)
                    end = reader.len;
                else {
                    end = reader.pos + length;
                    if (end > reader.len)
                        throw RangeError("index out of range");
                    length = reader.len;
                    reader.len = end;
                }
                message = new $root.rlfactory.v1.ForkEpisodeRequest();
                while (reader.pos < end) {
                    let tag = reader.uint32();
                    if (tag === error)
                        break;
                    switch (tag >>> 3) {
                    case 1: {
                            message.episode_id = reader.string();
                            break;
                        }
                    case 2: {
                            message.count = reader.uint32();
                            break;
                        }
                    default:
                        reader.skipType(tag & 7, long);
                        break;
                    }
                }
                if (length !== undefined) {
                    if (reader.pos !== end)
                        throw RangeError("index out of range");
                    reader.len = length;
                }
                return message;
            };

            ForkEpisodeRequest.fromObject = function fromObject(object, long) {
                if (object instanceof $root.rlfactory.v1.ForkEpisodeRequest)
                    return object;
                if (!$util.isObject(object))
                    throw TypeError(".rlfactory.v1.ForkEpisodeRequest: object expected");
                if (long === undefined)
                    long = 0;
                if (long > $util.recursionLimit)
                    throw Error("maximum nesting depth exceeded");
                let message = new $root.rlfactory.v1.ForkEpisodeRequest();
                if (object.episode_id != null)
                    message.episode_id = String(object.episode_id);
                if (object.count != null)
                    message.count = object.count >>> 0;
                return message;
            };

            ForkEpisodeRequest.toObject = function toObject(message, options, q) {
                if (!options)
                    options = {};
                if (q === undefined)
                    q = 0;
                if (q > $util.recursionLimit)
                    throw Error("max depth exceeded");
                let object = {};
                if (options.defaults) {
                    object.episode_id = "";
                    object.count = 0;
                }
                if (message.episode_id != null && Object.hasOwnProperty.call(message, "episode_id"))
                    object.episode_id = message.episode_id;
                if (message.count != null && Object.hasOwnProperty.call(message, "count"))
                    object.count = message.count;
                return object;
            };

            ForkEpisodeRequest.prototype.toJSON = function toJSON() {
                return this.constructor.toObject(this, $protobuf.util.toJSONOptions);
            };

            return ForkEpisodeRequest;
        })();

        v1.ForkEpisodeResponse = (function() {

            function ForkEpisodeResponse(properties) {
                this.episode_ids = [];
                if (properties)
                    for (let keys = Object.keys(properties), i = 0; i < keys.length; ++i)
                        if (properties[keys[i]] != null && keys[i] !== "__proto__")
                            this[keys[i]] = properties[keys[i]];
            }

            ForkEpisodeResponse.prototype.episode_ids = $util.emptyArray;

            ForkEpisodeResponse.encode = function encode(message, writer, q) {
                if (!writer)
                    writer = $Writer.create();
                if (q === undefined)
                    q = 0;
                if (q > $util.recursionLimit)
                    throw Error("max depth exceeded");
                if (message.episode_ids != null && message.episode_ids.length)
                    for (let i = 0; i < message.episode_ids.length; ++i)
                        writer.uint32(10).string(message.episode_ids[i]);
                return writer;
            };

            ForkEpisodeResponse.decode = function decode(reader, length, error, long) {
                if (!(reader instanceof $Reader))
                    reader = $Reader.create(reader);
                if (long === undefined)
                    long = 0;
                if (long > $Reader.recursionLimit)
                    throw Error("maximum nesting depth exceeded");
                let end, message;
                if (length === undefined)
                    end = reader.len;
                else {
                    end = reader.pos + length;
                    if (end > reader.len)
                        throw RangeError("index out of range");
                    length = reader.len;
                    reader.len = end;
                }
                message = new $root.rlfactory.v1.ForkEpisodeResponse();
                while (reader.pos < end) {
                    let tag = reader.uint32();
                    if (tag === error)
                        break;
                    switch (tag >>> 3) {
                    case 1: {
                            if (!(message.episode_ids && message.episode_ids.length))
                                message.episode_ids = [];
                            message.episode_ids.push(reader.string());
                            break;
                        }
                    default:
                        reader.skipType(tag & 7, long);
                        break;
                    }
                }
                if (length !== undefined) {
                    if (reader.pos !== end)
                        throw RangeError("index out of range");
                    reader.len = length;
                }
                return message;
            };

            ForkEpisodeResponse.fromObject = function fromObject(object, long) {
                if (object instanceof $root.rlfactory.v1.ForkEpisodeResponse)
                    return object;
                if (!$util.isObject(object))
                    throw TypeError(".rlfactory.v1.ForkEpisodeResponse: object expected");
                if (long === undefined)
                    long = 0;
                if (long > $util.recursionLimit)
                    throw Error("maximum nesting depth exceeded");
                let message = new $root.rlfactory.v1.ForkEpisodeResponse();
                if (object.episode_ids) {
                    if (!Array.isArray(object.episode_ids))
                        throw TypeError(".rlfactory.v1.ForkEpisodeResponse.episode_ids: array expected");
                    message.episode_ids = [];
                    for (let i = 0; i < object.episode_ids.length; ++i)
                        message.episode_ids[i] = String(object.episode_ids[i]);
                }
                return message;
            };

            ForkEpisodeResponse.toObject = function toObject(message, options, q) {
                if (!options)
                    options = {};
                if (q === undefined)
                    q = 0;
                if (q > $util.recursionLimit)
                    throw Error("max depth exceeded");
                let object = {};
                if (options.arrays || options.defaults)
                    object.episode_ids = [];
                if (message.episode_ids && message.episode_ids.length) {
                    object.episode_ids = [];
                    for (let j = 0; j < message.episode_ids.length; ++j)
                        object.episode_ids[j] = message.episode_ids[j];
                }
                return object;
            };

            ForkEpisodeResponse.prototype.toJSON = function toJSON() {
                return this.constructor.toObject(this, $protobuf.util.toJSONOptions);
            };

            return ForkEpisodeResponse;
        })();

        v1.SnapshotEpisodeRequest = (function() {

            function SnapshotEpisodeRequest(properties) {
                if (properties)
                    for (let keys = Object.keys(properties), i = 0; i < keys.length; ++i)
                        if (properties[keys[i]] != null && keys[i] !== "__proto__")
                            this[keys[i]] = properties[keys[i]];
            }

            SnapshotEpisodeRequest.prototype.episode_id = "";

            SnapshotEpisodeRequest.encode = function encode(message, writer, q) {
                if (!writer)
                    writer = $Writer.create();
                if (q === undefined)
                    q = 0;
                if (q > $util.recursionLimit)
                    throw Error("max depth exceeded");
                if (message.episode_id != null && Object.hasOwnProperty.call(message, "episode_id"))
                    writer.uint32(10).string(message.episode_id);
                return writer;
            };

            SnapshotEpisodeRequest.decode = function decode(reader, length, error, long) {
                if (!(reader instanceof $Reader))
                    reader = $Reader.create(reader);
                if (long === undefined)
                    long = 0;
                if (long > $Reader.recursionLimit)
                    throw Error("maximum nesting depth exceeded");
                let end, message;
                if (length === undefined)
                    end = reader.len;
                else {
                    end = reader.pos + length;
                    if (end > reader.len)
                        throw RangeError("index out of range");
                    length = reader.len;
                    reader.len = end;
                }
                message = new $root.rlfactory.v1.SnapshotEpisodeRequest();
                while (reader.pos < end) {
                    let tag = reader.uint32();
                    if (tag === error)
                        break;
                    switch (tag >>> 3) {
                    case 1: {
                            message.episode_id = reader.string();
                            break;
                        }
                    default:
                        reader.skipType(tag & 7, long);
                        break;
                    }
                }
                if (length !== undefined) {
                    if (reader.pos !== end)
                        throw RangeError("index out of range");
                    reader.len = length;
                }
                return message;
            };

            SnapshotEpisodeRequest.fromObject = function fromObject(object, long) {
                if (object instanceof $root.rlfactory.v1.SnapshotEpisodeRequest)
                    return object;
                if (!$util.isObject(object))
                    throw TypeError(".rlfactory.v1.SnapshotEpisodeRequest: object expected");
                if (long === undefined)
                    long = 0;
                if (long > $util.recursionLimit)
                    throw Error("maximum nesting depth exceeded");
                let message = new $root.rlfactory.v1.SnapshotEpisodeRequest();
                if (object.episode_id != null)
                    message.episode_id = String(object.episode_id);
                return message;
            };

            SnapshotEpisodeRequest.toObject = function toObject(message, options, q) {
                if (!options)
                    options = {};
                if (q === undefined)
                    q = 0;
                if (q > $util.recursionLimit)
                    throw Error("max depth exceeded");
                let object = {};
                if (options.defaults)
                    object.episode_id = "";
                if (message.episode_id != null && Object.hasOwnProperty.call(message, "episode_id"))
                    object.episode_id = message.episode_id;
                return object;
            };

            SnapshotEpisodeRequest.prototype.toJSON = function toJSON() {
                return this.constructor.toObject(this, $protobuf.util.toJSONOptions);
            };

            return SnapshotEpisodeRequest;
        })();

        v1.SnapshotEpisodeResponse = (function() {

            function SnapshotEpisodeResponse(properties) {
                if (properties)
                    for (let keys = Object.keys(properties), i = 0; i < keys.length; ++i)
                        if (properties[keys[i]] != null && keys[i] !== "__proto__")
                            this[keys[i]] = properties[keys[i]];
            }

            SnapshotEpisodeResponse.prototype.state_json = "";

            SnapshotEpisodeResponse.encode = function encode(message, writer, q) {
                if (!writer)
                    writer = $Writer.create();
                if (q === undefined)
                    q = 0;
                if (q > $util.recursionLimit)
                    throw Error("max depth exceeded");
                if (message.state_json != null && Object.hasOwnProperty.call(message, "state_json"))
                    writer.uint32(10).string(message.state_json);
                return writer;
            };

            SnapshotEpisodeResponse.decode = function decode(reader, length, error, long) {
                if (!(reader instanceof $Reader))
                    reader = $Reader.create(reader);
                if (long === undefined)
                    long = 0;
                if (long > $Reader.recursionLimit)
                    throw Error("maximum nesting depth exceeded");
                let end, message;
                if (length === undefined)
                    end = reader.len;
                else {
                    end = reader.pos + length;
                    if (end > reader.len)
                        throw RangeError("index out of range");
                    length = reader.len;
                    reader.len = end;
                }
                message = new $root.rlfactory.v1.SnapshotEpisodeResponse();
                while (reader.pos < end) {
                    let tag = reader.uint32();
                    if (tag === error)
                        break;
                    switch (tag >>> 3) {
                    case 1: {
                            message.state_json = reader.string();
                            break;
                        }
                    default:
                        reader.skipType(tag & 7, long);
                        break;
                    }
                }
                if (length !== undefined) {
                    if (reader.pos !== end)
                        throw RangeError("index out of range");
                    reader.len = length;
                }
                return message;
            };

            SnapshotEpisodeResponse.fromObject = function fromObject(object, long) {
                if (object instanceof $root.rlfactory.v1.SnapshotEpisodeResponse)
                    return object;
                if (!$util.isObject(object))
                    throw TypeError(".rlfactory.v1.SnapshotEpisodeResponse: object expected");
                if (long === undefined)
                    long = 0;
                if (long > $util.recursionLimit)
                    throw Error("maximum nesting depth exceeded");
                let message = new $root.rlfactory.v1.SnapshotEpisodeResponse();
                if (object.state_json != null)
                    message.state_json = String(object.state_json);
                return message;
            };

            SnapshotEpisodeResponse.toObject = function toObject(message, options, q) {
                if (!options)
                    options = {};
                if (q === undefined)
                    q = 0;
                if (q > $util.recursionLimit)
                    throw Error("max depth exceeded");
                let object = {};
                if (options.defaults)
                    object.state_json = "";
                if (message.state_json != null && Object.hasOwnProperty.call(message, "state_json"))
                    object.state_json = message.state_json;
                return object;
            };

            SnapshotEpisodeResponse.prototype.toJSON = function toJSON() {
                return this.constructor.toObject(this, $protobuf.util.toJSONOptions);
            };

            return SnapshotEpisodeResponse;
        })();

        v1.EndEpisodeRequest = (function() {

            function EndEpisodeRequest(properties) {
                if (properties)
                    for (let keys = Object.keys(properties), i = 0; i < keys.length; ++i)
                        if (properties[keys[i]] != null && keys[i] !== "__proto__")
                            this[keys[i]] = properties[keys[i]];
            }

            EndEpisodeRequest.prototype.episode_id = "";

            EndEpisodeRequest.encode = function encode(message, writer, q) {
                if (!writer)
                    writer = $Writer.create();
                if (q === undefined)
                    q = 0;
                if (q > $util.recursionLimit)
                    throw Error("max depth exceeded");
                if (message.episode_id != null && Object.hasOwnProperty.call(message, "episode_id"))
                    writer.uint32(10).string(message.episode_id);
                return writer;
            };

            EndEpisodeRequest.decode = function decode(reader, length, error, long) {
                if (!(reader instanceof $Reader))
                    reader = $Reader.create(reader);
                if (long === undefined)
                    long = 0;
                if (long > $Reader.recursionLimit)
                    throw Error("maximum nesting depth exceeded");
                let end, message;
                if (length === undefined)
                    end = reader.len;
                else {
                    end = reader.pos + length;
                    if (end > reader.len)
                        throw RangeError("index out of range");
                    length = reader.len;
                    reader.len = end;
                }
                message = new $root.rlfactory.v1.EndEpisodeRequest();
                while (reader.pos < end) {
                    let tag = reader.uint32();
                    if (tag === error)
                        break;
                    switch (tag >>> 3) {
                    case 1: {
                            message.episode_id = reader.string();
                            break;
                        }
                    default:
                        reader.skipType(tag & 7, long);
                        break;
                    }
                }
                if (length !== undefined) {
                    if (reader.pos !== end)
                        throw RangeError("index out of range");
                    reader.len = length;
                }
                return message;
            };

            EndEpisodeRequest.fromObject = function fromObject(object, long) {
                if (object instanceof $root.rlfactory.v1.EndEpisodeRequest)
                    return object;
                if (!$util.isObject(object))
                    throw TypeError(".rlfactory.v1.EndEpisodeRequest: object expected");
                if (long === undefined)
                    long = 0;
                if (long > $util.recursionLimit)
                    throw Error("maximum nesting depth exceeded");
                let message = new $root.rlfactory.v1.EndEpisodeRequest();
                if (object.episode_id != null)
                    message.episode_id = String(object.episode_id);
                return message;
            };

            EndEpisodeRequest.toObject = function toObject(message, options, q) {
                if (!options)
                    options = {};
                if (q === undefined)
                    q = 0;
                if (q > $util.recursionLimit)
                    throw Error("max depth exceeded");
                let object = {};
                if (options.defaults)
                    object.episode_id = "";
                if (message.episode_id != null && Object.hasOwnProperty.call(message, "episode_id"))
                    object.episode_id = message.episode_id;
                return object;
            };

            EndEpisodeRequest.prototype.toJSON = function toJSON() {
                return this.constructor.toObject(this, $protobuf.util.toJSONOptions);
            };

            return EndEpisodeRequest;
        })();

        v1.EndEpisodeResponse = (function() {

            function EndEpisodeResponse(properties) {
                if (properties)
                    for (let keys = Object.keys(properties), i = 0; i < keys.length; ++i)
                        if (properties[keys[i]] != null && keys[i] !== "__proto__")
                            this[keys[i]] = properties[keys[i]];
            }

            EndEpisodeResponse.prototype.state_json = "";

            EndEpisodeResponse.encode = function encode(message, writer, q) {
                if (!writer)
                    writer = $Writer.create();
                if (q === undefined)
                    q = 0;
                if (q > $util.recursionLimit)
                    throw Error("max depth exceeded");
                if (message.state_json != null && Object.hasOwnProperty.call(message, "state_json"))
                    writer.uint32(10).string(message.state_json);
                return writer;
            };

            EndEpisodeResponse.decode = function decode(reader, length, error, long) {
                if (!(reader instanceof $Reader))
                    reader = $Reader.create(reader);
                if (long === undefined)
                    long = 0;
                if (long > $Reader.recursionLimit)
                    throw Error("maximum nesting depth exceeded");
                let end, message;
                if (length === undefined)
                    end = reader.len;
                else {
                    end = reader.pos + length;
                    if (end > reader.len)
                        throw RangeError("index out of range");
                    length = reader.len;
                    reader.len = end;
                }
                message = new $root.rlfactory.v1.EndEpisodeResponse();
                while (reader.pos < end) {
                    let tag = reader.uint32();
                    if (tag === error)
                        break;
                    switch (tag >>> 3) {
                    case 1: {
                            message.state_json = reader.string();
                            break;
                        }
                    default:
                        reader.skipType(tag & 7, long);
                        break;
                    }
                }
                if (length !== undefined) {
                    if (reader.pos !== end)
                        throw RangeError("index out of range");
                    reader.len = length;
                }
                return message;
            };

            EndEpisodeResponse.fromObject = function fromObject(object, long) {
                if (object instanceof $root.rlfactory.v1.EndEpisodeResponse)
                    return object;
                if (!$util.isObject(object))
                    throw TypeError(".rlfactory.v1.EndEpisodeResponse: object expected");
                if (long === undefined)
                    long = 0;
                if (long > $util.recursionLimit)
                    throw Error("maximum nesting depth exceeded");
                let message = new $root.rlfactory.v1.EndEpisodeResponse();
                if (object.state_json != null)
                    message.state_json = String(object.state_json);
                return message;
            };

            EndEpisodeResponse.toObject = function toObject(message, options, q) {
                if (!options)
                    options = {};
                if (q === undefined)
                    q = 0;
                if (q > $util.recursionLimit)
                    throw Error("max depth exceeded");
                let object = {};
                if (options.defaults)
                    object.state_json = "";
                if (message.state_json != null && Object.hasOwnProperty.call(message, "state_json"))
                    object.state_json = message.state_json;
                return object;
            };

            EndEpisodeResponse.prototype.toJSON = function toJSON() {
                return this.constructor.toObject(this, $protobuf.util.toJSONOptions);
            };

            return EndEpisodeResponse;
        })();

        v1.ListToolsRequest = (function() {

            function ListToolsRequest(properties) {
                if (properties)
                    for (let keys = Object.keys(properties), i = 0; i < keys.length; ++i)
                        if (properties[keys[i]] != null && keys[i] !== "__proto__")
                            this[keys[i]] = properties[keys[i]];
            }

            ListToolsRequest.prototype.server = "";

            ListToolsRequest.encode = function encode(message, writer, q) {
                if (!writer)
                    writer = $Writer.create();
                if (q === undefined)
                    q = 0;
                if (q > $util.recursionLimit)
                    throw Error("max depth exceeded");
                if (message.server != null && Object.hasOwnProperty.call(message, "server"))
                    writer.uint32(10).string(message.server);
                return writer;
            };

            ListToolsRequest.decode = function decode(reader, length, error, long) {
                if (!(reader instanceof $Reader))
                    reader = $Reader.create(reader);
                if (long === undefined)
                    long = 0;
                if (long > $Reader.recursionLimit)
                    throw Error("maximum nesting depth exceeded");
                let end, message;
                if (length === undefined)
                    end = reader.len;
                else {
                    end = reader.pos + length;
                    if (end > reader.len)
                        throw RangeError("index out of range");
                    length = reader.len;
                    reader.len = end;
                }
                message = new $root.rlfactory.v1.ListToolsRequest();
                while (reader.pos < end) {
                    let tag = reader.uint32();
                    if (tag === error)
                        break;
                    switch (tag >>> 3) {
                    case 1: {
                            message.server = reader.string();
                            break;
                        }
                    default:
                        reader.skipType(tag & 7, long);
                        break;
                    }
                }
                if (length !== undefined) {
                    if (reader.pos !== end)
                        throw RangeError("index out of range");
                    reader.len = length;
                }
                return message;
            };

            ListToolsRequest.fromObject = function fromObject(object, long) {
                if (object instanceof $root.rlfactory.v1.ListToolsRequest)
                    return object;
                if (!$util.isObject(object))
                    throw TypeError(".rlfactory.v1.ListToolsRequest: object expected");
                if (long === undefined)
                    long = 0;
                if (long > $util.recursionLimit)
                    throw Error("maximum nesting depth exceeded");
                let message = new $root.rlfactory.v1.ListToolsRequest();
                if (object.server != null)
                    message.server = String(object.server);
                return message;
            };

            ListToolsRequest.toObject = function toObject(message, options, q) {
                if (!options)
                    options = {};
                if (q === undefined)
                    q = 0;
                if (q > $util.recursionLimit)
                    throw Error("max depth exceeded");
                let object = {};
                if (options.defaults)
                    object.server = "";
                if (message.server != null && Object.hasOwnProperty.call(message, "server"))
                    object.server = message.server;
                return object;
            };

            ListToolsRequest.prototype.toJSON = function toJSON() {
                return this.constructor.toObject(this, $protobuf.util.toJSONOptions);
            };

            return ListToolsRequest;
        })();

        v1.ListToolsResponse = (function() {

            function ListToolsResponse(properties) {
                this.tools = [];
                if (properties)
                    for (let keys = Object.keys(properties), i = 0; i < keys.length; ++i)
                        if (properties[keys[i]] != null && keys[i] !== "__proto__")
                            this[keys[i]] = properties[keys[i]];
            }

            ListToolsResponse.prototype.tools = $util.emptyArray;

            ListToolsResponse.encode = function encode(message, writer, q) {
                if (!writer)
                    writer = $Writer.create();
                if (q === undefined)
                    q = 0;
                if (q > $util.recursionLimit)
                    throw Error("max depth exceeded");
                if (message.tools != null && message.tools.length)
                    for (let i = 0; i < message.tools.length; ++i)
                        $root.rlfactory.v1.Tool.encode(message.tools[i], writer.uint32(10).fork(), q + 1).ldelim();
                return writer;
            };

            ListToolsResponse.decode = function decode(reader, length, error, long) {
                if (!(reader instanceof $Reader))
                    reader = $Reader.create(reader);
                if (long === undefined)
                    long = 0;
                if (long > $Reader.recursionLimit)
                    throw Error("maximum nesting depth exceeded");
                let end, message;
                if (length === undefined)
                    end = reader.len;
                else {
                    end = reader.pos + length;
                    if (end > reader.len)
                        throw RangeError("index out of range");
                    length = reader.len;
                    reader.len = end;
                }
                message = new $root.rlfactory.v1.ListToolsResponse();
                while (reader.pos < end) {
                    let tag = reader.uint32();
                    if (tag === error)
                        break;
                    switch (tag >>> 3) {
                    case 1: {
                            if (!(message.tools && message.tools.length))
                                message.tools = [];
                            message.tools.push($root.rlfactory.v1.Tool.decode(reader, reader.uint32(), undefined, long + 1));
                            break;
                        }
                    default:
                        reader.skipType(tag & 7, long);
                        break;
                    }
                }
                if (length !== undefined) {
                    if (reader.pos !== end)
                        throw RangeError("index out of range");
                    reader.len = length;
                }
                return message;
            };

            ListToolsResponse.fromObject = function fromObject(object, long) {
                if (object instanceof $root.rlfactory.v1.ListToolsResponse)
                    return object;
                if (!$util.isObject(object))
                    throw TypeError(".rlfactory.v1.ListToolsResponse: object expected");
                if (long === undefined)
                    long = 0;
                if (long > $util.recursionLimit)
                    throw Error("maximum nesting depth exceeded");
                let message = new $root.rlfactory.v1.ListToolsResponse();
                if (object.tools) {
                    if (!Array.isArray(object.tools))
                        throw TypeError(".rlfactory.v1.ListToolsResponse.tools: array expected");
                    message.tools = [];
                    for (let i = 0; i < object.tools.length; ++i) {
                        if (!$util.isObject(object.tools[i]))
                            throw TypeError(".rlfactory.v1.ListToolsResponse.tools: object expected");
                        message.tools[i] = $root.rlfactory.v1.Tool.fromObject(object.tools[i], long + 1);
                    }
                }
                return message;
            };

            ListToolsResponse.toObject = function toObject(message, options, q) {
                if (!options)
                    options = {};
                if (q === undefined)
                    q = 0;
                if (q > $util.recursionLimit)
                    throw Error("max depth exceeded");
                let object = {};
                if (options.arrays || options.defaults)
                    object.tools = [];
                if (message.tools && message.tools.length) {
                    object.tools = [];
                    for (let j = 0; j < message.tools.length; ++j)
                        object.tools[j] = $root.rlfactory.v1.Tool.toObject(message.tools[j], options, q + 1);
                }
                return object;
            };

            ListToolsResponse.prototype.toJSON = function toJSON() {
                return this.constructor.toObject(this, $protobuf.util.toJSONOptions);
            };

            return ListToolsResponse;
        })();

        v1.Tool = (function() {

            function Tool(properties) {
                if (properties)
                    for (let keys = Object.keys(properties), i = 0; i < keys.length; ++i)
                        if (properties[keys[i]] != null && keys[i] !== "__proto__")
                            this[keys[i]] = properties[keys[i]];
            }

            Tool.prototype.name = "";
            Tool.prototype.server = "";
            Tool.prototype.upstream_name = "";
            Tool.prototype.title = "";
            Tool.prototype.description = "";
            Tool.prototype.input_schema_json = "";
            Tool.prototype.output_schema_json = "";
            Tool.prototype.annotations = null;
            Tool.prototype.cacheable = false;
            Tool.prototype.idempotent = false;
            Tool.prototype.schema_version = "";

            Tool.encode = function encode(message, writer, q) {
                if (!writer)
                    writer = $Writer.create();
                if (q === undefined)
                    q = 0;
                if (q > $util.recursionLimit)
                    throw Error("max depth exceeded");
                if (message.name != null && Object.hasOwnProperty.call(message, "name"))
                    writer.uint32(10).string(message.name);
                if (message.server != null && Object.hasOwnProperty.call(message, "server"))
                    writer.uint32(18).string(message.server);
                if (message.upstream_name != null && Object.hasOwnProperty.call(message, "upstream_name"))
                    writer.uint32(26).string(message.upstream_name);
                if (message.title != null && Object.hasOwnProperty.call(message, "title"))
                    writer.uint32(34).string(message.title);
                if (message.description != null && Object.hasOwnProperty.call(message, "description"))
                    writer.uint32(42).string(message.description);
                if (message.input_schema_json != null && Object.hasOwnProperty.call(message, "input_schema_json"))
                    writer.uint32(50).string(message.input_schema_json);
                if (message.output_schema_json != null && Object.hasOwnProperty.call(message, "output_schema_json"))
                    writer.uint32(58).string(message.output_schema_json);
                if (message.annotations != null && Object.hasOwnProperty.call(message, "annotations"))
                    $root.rlfactory.v1.ToolAnnotations.encode(message.annotations, writer.uint32(66).fork(), q + 1).ldelim();
                if (message.cacheable != null && Object.hasOwnProperty.call(message, "cacheable"))
                    writer.uint32(72).bool(message.cacheable);
                if (message.idempotent != null && Object.hasOwnProperty.call(message, "idempotent"))
                    writer.uint32(80).bool(message.idempotent);
                if (message.schema_version != null && Object.hasOwnProperty.call(message, "schema_version"))
                    writer.uint32(90).string(message.schema_version);
                return writer;
            };

            Tool.decode = function decode(reader, length, error, long) {
                if (!(reader instanceof $Reader))
                    reader = $Reader.create(reader);
                if (long === undefined)
                    long = 0;
                if (long > $Reader.recursionLimit)
                    throw Error("maximum nesting depth exceeded");
                let end, message;
                if (length === undefined)
                    end = reader.len;
                else {
                    end = reader.pos + length;
                    if (end > reader.len)
                        throw RangeError("index out of range");
                    length = reader.len;
                    reader.len = end;
                }
                message = new $root.rlfactory.v1.Tool();
                while (reader.pos < end) {
                    let tag = reader.uint32();
                    if (tag === error)
                        break;
                    switch (tag >>> 3) {
                    case 1: {
                            message.name = reader.string();
                            break;
                        }
                    case 2: {
                            message.server = reader.string();
                            break;
                        }
                    case 3: {
                            message.upstream_name = reader.string();
                            break;
                        }
                    case 4: {
                            message.title = reader.string();
                            break;
                        }
                    case 5: {
                            message.description = reader.string();
                            break;
                        }
                    case 6: {
                            message.input_schema_json = reader.string();
                            break;
                        }
                    case 7: {
                            message.output_schema_json = reader.string();
                            break;
                        }
                    case 8: {
                            message.annotations = $root.rlfactory.v1.ToolAnnotations.decode(reader, reader.uint32(), undefined, long + 1);
                            break;
                        }
                    case 9: {
                            message.cacheable = reader.bool();
                            break;
                        }
                    case 10: {
                            message.idempotent = reader.bool();
                            break;
                        }
                    case 11: {
                            message.schema_version = reader.string();
                            break;
                        }
                    default:
                        reader.skipType(tag & 7, long);
                        break;
                    }
                }
                if (length !== undefined) {
                    if (reader.pos !== end)
                        throw RangeError("index out of range");
                    reader.len = length;
                }
                return message;
            };

            Tool.fromObject = function fromObject(object, long) {
                if (object instanceof $root.rlfactory.v1.Tool)
                    return object;
                if (!$util.isObject(object))
                    throw TypeError(".rlfactory.v1.Tool: object expected");
                if (long === undefined)
                    long = 0;
                if (long > $util.recursionLimit)
                    throw Error("maximum nesting depth exceeded");
                let message = new $root.rlfactory.v1.Tool();
                if (object.name != null)
                    message.name = String(object.name);
                if (object.server != null)
                    message.server = String(object.server);
                if (object.upstream_name != null)
                    message.upstream_name = String(object.upstream_name);
                if (object.title != null)
                    message.title = String(object.title);
                if (object.description != null)
                    message.description = String(object.description);
                if (object.input_schema_json != null)
                    message.input_schema_json = String(object.input_schema_json);
                if (object.output_schema_json != null)
                    message.output_schema_json = String(object.output_schema_json);
                if (object.annotations != null) {
                    if (!$util.isObject(object.annotations))
                        throw TypeError(".rlfactory.v1.Tool.annotations: object expected");
                    message.annotations = $root.rlfactory.v1.ToolAnnotations.fromObject(object.annotations, long + 1);
                }
                if (object.cacheable != null)
                    message.cacheable = Boolean(object.cacheable);
                if (object.idempotent != null)
                    message.idempotent = Boolean(object.idempotent);
                if (object.schema_version != null)
                    message.schema_version = String(object.schema_version);
                return message;
            };

            Tool.toObject = function toObject(message, options, q) {
                if (!options)
                    options = {};
                if (q === undefined)
                    q = 0;
                if (q > $util.recursionLimit)
                    throw Error("max depth exceeded");
                let object = {};
                if (options.defaults) {
                    object.name = "";
                    object.server = "";
                    object.upstream_name = "";
                    object.title = "";
                    object.description = "";
                    object.input_schema_json = "";
                    object.output_schema_json = "";
                    object.annotations = null;
                    object.cacheable = false;
                    object.idempotent = false;
                    object.schema_version = "";
                }
                if (message.name != null && Object.hasOwnProperty.call(message, "name"))
                    object.name = message.name;
                if (message.server != null && Object.hasOwnProperty.call(message, "server"))
                    object.server = message.server;
                if (message.upstream_name != null && Object.hasOwnProperty.call(message, "upstream_name"))
                    object.upstream_name = message.upstream_name;
                if (message.title != null && Object.hasOwnProperty.call(message, "title"))
                    object.title = message.title;
                if (message.description != null && Object.hasOwnProperty.call(message, "description"))
                    object.description = message.description;
                if (message.input_schema_json != null && Object.hasOwnProperty.call(message, "input_schema_json"))
                    object.input_schema_json = message.input_schema_json;
                if (message.output_schema_json != null && Object.hasOwnProperty.call(message, "output_schema_json"))
                    object.output_schema_json = message.output_schema_json;
                if (message.annotations != null && Object.hasOwnProperty.call(message, "annotations"))
                    object.annotations = $root.rlfactory.v1.ToolAnnotations.toObject(message.annotations, options, q + 1);
                if (message.cacheable != null && Object.hasOwnProperty.call(message, "cacheable"))
                    object.cacheable = message.cacheable;
                if (message.idempotent != null && Object.hasOwnProperty.call(message, "idempotent"))
                    object.idempotent = message.idempotent;
                if (message.schema_version != null && Object.hasOwnProperty.call(message, "schema_version"))
                    object.schema_version = message.schema_version;
                return object;
            };

            Tool.prototype.toJSON = function toJSON() {
                return this.constructor.toObject(this, $protobuf.util.toJSONOptions);
            };

            return Tool;
        })();

        v1.ToolAnnotations = (function() {

            function ToolAnnotations(properties) {
                if (properties)
                    for (let keys = Object.keys(properties), i = 0; i < keys.length; ++i)
                        if (properties[keys[i]] != null && keys[i] !== "__proto__")
                            this[keys[i]] = properties[keys[i]];
            }

            ToolAnnotations.prototype.read_only_hint = null;
            ToolAnnotations.prototype.destructive_hint = null;
            ToolAnnotations.prototype.idempotent_hint = null;
            ToolAnnotations.prototype.open_world_hint = null;

            let $oneOfFields;

            // Virtual OneOf for proto3 optional field
            Object.defineProperty(ToolAnnotations.prototype, "_read_only_hint", {
                get: $util.oneOfGetter($oneOfFields = ["read_only_hint"]),
                set: $util.oneOfSetter($oneOfFields)
            });

            // Virtual OneOf for proto3 optional field
            Object.defineProperty(ToolAnnotations.prototype, "_destructive_hint", {
                get: $util.oneOfGetter($oneOfFields = ["destructive_hint"]),
                set: $util.oneOfSetter($oneOfFields)
            });

            // Virtual OneOf for proto3 optional field
            Object.defineProperty(ToolAnnotations.prototype, "_idempotent_hint", {
                get: $util.oneOfGetter($oneOfFields = ["idempotent_hint"]),
                set: $util.oneOfSetter($oneOfFields)
            });

            // Virtual OneOf for proto3 optional field
            Object.defineProperty(ToolAnnotations.prototype, "_open_world_hint", {
                get: $util.oneOfGetter($oneOfFields = ["open_world_hint"]),
                set: $util.oneOfSetter($oneOfFields)
            });

            ToolAnnotations.encode = function encode(message, writer, q) {
                if (!writer)
                    writer = $Writer.create();
                if (q === undefined)
                    q = 0;
                if (q > $util.recursionLimit)
                    throw Error("max depth exceeded");
                if (message.read_only_hint != null && Object.hasOwnProperty.call(message, "read_only_hint"))
                    writer.uint32(8).bool(message.read_only_hint);
                if (message.destructive_hint != null && Object.hasOwnProperty.call(message, "destructive_hint"))
                    writer.uint32(16).bool(message.destructive_hint);
                if (message.idempotent_hint != null && Object.hasOwnProperty.call(message, "idempotent_hint"))
                    writer.uint32(24).bool(message.idempotent_hint);
                if (message.open_world_hint != null && Object.hasOwnProperty.call(message, "open_world_hint"))
                    writer.uint32(32).bool(message.open_world_hint);
                return writer;
            };

            ToolAnnotations.decode = function decode(reader, length, error, long) {
                if (!(reader instanceof $Reader))
                    reader = $Reader.create(reader);
                if (long === undefined)
                    long = 0;
                if (long > $Reader.recursionLimit)
                    throw Error("maximum nesting depth exceeded");
                let end, message;
                if (length === undefined)
                    end = reader.len;
                else {
                    end = reader.pos + length;
                    if (end > reader.len)
                        throw RangeError("index out of range");
                    length = reader.len;
                    reader.len = end;
                }
                message = new $root.rlfactory.v1.ToolAnnotations();
                while (reader.pos < end) {
                    let tag = reader.uint32();
                    if (tag === error)
                        break;
                    switch (tag >>> 3) {
                    case 1: {
                            message.read_only_hint = reader.bool();
                            break;
                        }
                    case 2: {
                            message.destructive_hint = reader.bool();
                            break;
                        }
                    case 3: {
                            message.idempotent_hint = reader.bool();
                            break;
                        }
                    case 4: {
                            message.open_world_hint = reader.bool();
                            break;
                        }
                    default:
                        reader.skipType(tag & 7, long);
                        break;
                    }
                }
                if (length !== undefined) {
                    if (reader.pos !== end)
                        throw RangeError("index out of range");
                    reader.len = length;
                }
                return message;
            };

            ToolAnnotations.fromObject = function fromObject(object, long) {
                if (object instanceof $root.rlfactory.v1.ToolAnnotations)
                    return object;
                if (!$util.isObject(object))
                    throw TypeError(".rlfactory.v1.ToolAnnotations: object expected");
                if (long === undefined)
                    long = 0;
                if (long > $util.recursionLimit)
                    throw Error("maximum nesting depth exceeded");
                let message = new $root.rlfactory.v1.ToolAnnotations();
                if (object.read_only_hint != null)
                    message.read_only_hint = Boolean(object.read_only_hint);
                if (object.destructive_hint != null)
                    message.destructive_hint = Boolean(object.destructive_hint);
                if (object.idempotent_hint != null)
                    message.idempotent_hint = Boolean(object.idempotent_hint);
                if (object.open_world_hint != null)
                    message.open_world_hint = Boolean(object.open_world_hint);
                return message;
            };

            ToolAnnotations.toObject = function toObject(message, options, q) {
                if (!options)
                    options = {};
                if (q === undefined)
                    q = 0;
                if (q > $util.recursionLimit)
                    throw Error("max depth exceeded");
                let object = {};
                if (message.read_only_hint != null && Object.hasOwnProperty.call(message, "read_only_hint")) {
                    object.read_only_hint = message.read_only_hint;
                    if (options.oneofs)
                        object._read_only_hint = "read_only_hint";
                }
                if (message.destructive_hint != null && Object.hasOwnProperty.call(message, "destructive_hint")) {
                    object.destructive_hint = message.destructive_hint;
                    if (options.oneofs)
                        object._destructive_hint = "destructive_hint";
                }
                if (message.idempotent_hint != null && Object.hasOwnProperty.call(message, "idempotent_hint")) {
                    object.idempotent_hint = message.idempotent_hint;
                    if (options.oneofs)
                        object._idempotent_hint = "idempotent_hint";
                }
                if (message.open_world_hint != null && Object.hasOwnProperty.call(message, "open_world_hint")) {
                    object.open_world_hint = message.open_world_hint;
                    if (options.oneofs)
                        object._open_world_hint = "open_world_hint";
                }
                return object;
            };

            ToolAnnotations.prototype.toJSON = function toJSON() {
                return this.constructor.toObject(this, $protobuf.util.toJSONOptions);
            };

            return ToolAnnotations;
        })();

        v1.CacheMode = (function() {
            const valuesById = {}, values = Object.create(valuesById);
            values[valuesById[0] = "CACHE_DEFAULT"] = 0;
            values[valuesById[1] = "CACHE_BYPASS"] = 1;
            return values;
        })();

        v1.ToolCall = (function() {

            function ToolCall(properties) {
                if (properties)
                    for (let keys = Object.keys(properties), i = 0; i < keys.length; ++i)
                        if (properties[keys[i]] != null && keys[i] !== "__proto__")
                            this[keys[i]] = properties[keys[i]];
            }

            ToolCall.prototype.name = "";
            ToolCall.prototype.arguments_json = "";
            ToolCall.prototype.deadline_ms = 0;
            ToolCall.prototype.trajectory_id = "";
            ToolCall.prototype.cache = 0;
            ToolCall.prototype.call_id = "";
            ToolCall.prototype.episode_id = "";

            ToolCall.encode = function encode(message, writer, q) {
                if (!writer)
                    writer = $Writer.create();
                if (q === undefined)
                    q = 0;
                if (q > $util.recursionLimit)
                    throw Error("max depth exceeded");
                if (message.name != null && Object.hasOwnProperty.call(message, "name"))
                    writer.uint32(10).string(message.name);
                if (message.arguments_json != null && Object.hasOwnProperty.call(message, "arguments_json"))
                    writer.uint32(18).string(message.arguments_json);
                if (message.deadline_ms != null && Object.hasOwnProperty.call(message, "deadline_ms"))
                    writer.uint32(24).uint32(message.deadline_ms);
                if (message.trajectory_id != null && Object.hasOwnProperty.call(message, "trajectory_id"))
                    writer.uint32(34).string(message.trajectory_id);
                if (message.cache != null && Object.hasOwnProperty.call(message, "cache"))
                    writer.uint32(40).int32(message.cache);
                if (message.call_id != null && Object.hasOwnProperty.call(message, "call_id"))
                    writer.uint32(50).string(message.call_id);
                if (message.episode_id != null && Object.hasOwnProperty.call(message, "episode_id"))
                    writer.uint32(58).string(message.episode_id);
                return writer;
            };

            ToolCall.decode = function decode(reader, length, error, long) {
                if (!(reader instanceof $Reader))
                    reader = $Reader.create(reader);
                if (long === undefined)
                    long = 0;
                if (long > $Reader.recursionLimit)
                    throw Error("maximum nesting depth exceeded");
                let end, message;
                if (length === undefined)
                    end = reader.len;
                else {
                    end = reader.pos + length;
                    if (end > reader.len)
                        throw RangeError("index out of range");
                    length = reader.len;
                    reader.len = end;
                }
                message = new $root.rlfactory.v1.ToolCall();
                while (reader.pos < end) {
                    let tag = reader.uint32();
                    if (tag === error)
                        break;
                    switch (tag >>> 3) {
                    case 1: {
                            message.name = reader.string();
                            break;
                        }
                    case 2: {
                            message.arguments_json = reader.string();
                            break;
                        }
                    case 3: {
                            message.deadline_ms = reader.uint32();
                            break;
                        }
                    case 4: {
                            message.trajectory_id = reader.string();
                            break;
                        }
                    case 5: {
                            message.cache = reader.int32();
                            break;
                        }
                    case 6: {
                            message.call_id = reader.string();
                            break;
                        }
                    case 7: {
                            message.episode_id = reader.string();
                            break;
                        }
                    default:
                        reader.skipType(tag & 7, long);
                        break;
                    }
                }
                if (length !== undefined) {
                    if (reader.pos !== end)
                        throw RangeError("index out of range");
                    reader.len = length;
                }
                return message;
            };

            ToolCall.fromObject = function fromObject(object, long) {
                if (object instanceof $root.rlfactory.v1.ToolCall)
                    return object;
                if (!$util.isObject(object))
                    throw TypeError(".rlfactory.v1.ToolCall: object expected");
                if (long === undefined)
                    long = 0;
                if (long > $util.recursionLimit)
                    throw Error("maximum nesting depth exceeded");
                let message = new $root.rlfactory.v1.ToolCall();
                if (object.name != null)
                    message.name = String(object.name);
                if (object.arguments_json != null)
                    message.arguments_json = String(object.arguments_json);
                if (object.deadline_ms != null)
                    message.deadline_ms = object.deadline_ms >>> 0;
                if (object.trajectory_id != null)
                    message.trajectory_id = String(object.trajectory_id);
                switch (object.cache) {
                default:
                    if (typeof object.cache === "number") {
                        message.cache = object.cache;
                        break;
                    }
                    break;
                case "CACHE_DEFAULT":
                case 0:
                    message.cache = 0;
                    break;
                case "CACHE_BYPASS":
                case 1:
                    message.cache = 1;
                    break;
                }
                if (object.call_id != null)
                    message.call_id = String(object.call_id);
                if (object.episode_id != null)
                    message.episode_id = String(object.episode_id);
                return message;
            };

            ToolCall.toObject = function toObject(message, options, q) {
                if (!options)
                    options = {};
                if (q === undefined)
                    q = 0;
                if (q > $util.recursionLimit)
                    throw Error("max depth exceeded");
                let object = {};
                if (options.defaults) {
                    object.name = "";
                    object.arguments_json = "";
                    object.deadline_ms = 0;
                    object.trajectory_id = "";
                    object.cache = options.enums === String ? "CACHE_DEFAULT" : 0;
                    object.call_id = "";
                    object.episode_id = "";
                }
                if (message.name != null && Object.hasOwnProperty.call(message, "name"))
                    object.name = message.name;
                if (message.arguments_json != null && Object.hasOwnProperty.call(message, "arguments_json"))
                    object.arguments_json = message.arguments_json;
                if (message.deadline_ms != null && Object.hasOwnProperty.call(message, "deadline_ms"))
                    object.deadline_ms = message.deadline_ms;
                if (message.trajectory_id != null && Object.hasOwnProperty.call(message, "trajectory_id"))
                    object.trajectory_id = message.trajectory_id;
                if (message.cache != null && Object.hasOwnProperty.call(message, "cache"))
                    object.cache = options.enums === String ? $root.rlfactory.v1.CacheMode[message.cache] === undefined ? message.cache : $root.rlfactory.v1.CacheMode[message.cache] : message.cache;
                if (message.call_id != null && Object.hasOwnProperty.call(message, "call_id"))
                    object.call_id = message.call_id;
                if (message.episode_id != null && Object.hasOwnProperty.call(message, "episode_id"))
                    object.episode_id = message.episode_id;
                return object;
            };

            ToolCall.prototype.toJSON = function toJSON() {
                return this.constructor.toObject(this, $protobuf.util.toJSONOptions);
            };

            return ToolCall;
        })();

        v1.CallToolsRequest = (function() {

            function CallToolsRequest(properties) {
                this.calls = [];
                if (properties)
                    for (let keys = Object.keys(properties), i = 0; i < keys.length; ++i)
                        if (properties[keys[i]] != null && keys[i] !== "__proto__")
                            this[keys[i]] = properties[keys[i]];
            }

            CallToolsRequest.prototype.calls = $util.emptyArray;
            CallToolsRequest.prototype.deadline_ms = 0;
            CallToolsRequest.prototype.trajectory_id = "";

            CallToolsRequest.encode = function encode(message, writer, q) {
                if (!writer)
                    writer = $Writer.create();
                if (q === undefined)
                    q = 0;
                if (q > $util.recursionLimit)
                    throw Error("max depth exceeded");
                if (message.calls != null && message.calls.length)
                    for (let i = 0; i < message.calls.length; ++i)
                        $root.rlfactory.v1.ToolCall.encode(message.calls[i], writer.uint32(10).fork(), q + 1).ldelim();
                if (message.deadline_ms != null && Object.hasOwnProperty.call(message, "deadline_ms"))
                    writer.uint32(16).uint32(message.deadline_ms);
                if (message.trajectory_id != null && Object.hasOwnProperty.call(message, "trajectory_id"))
                    writer.uint32(26).string(message.trajectory_id);
                return writer;
            };

            CallToolsRequest.decode = function decode(reader, length, error, long) {
                if (!(reader instanceof $Reader))
                    reader = $Reader.create(reader);
                if (long === undefined)
                    long = 0;
                if (long > $Reader.recursionLimit)
                    throw Error("maximum nesting depth exceeded");
                let end, message;
                if (length === undefined)
                    end = reader.len;
                else {
                    end = reader.pos + length;
                    if (end > reader.len)
                        throw RangeError("index out of range");
                    length = reader.len;
                    reader.len = end;
                }
                message = new $root.rlfactory.v1.CallToolsRequest();
                while (reader.pos < end) {
                    let tag = reader.uint32();
                    if (tag === error)
                        break;
                    switch (tag >>> 3) {
                    case 1: {
                            if (!(message.calls && message.calls.length))
                                message.calls = [];
                            message.calls.push($root.rlfactory.v1.ToolCall.decode(reader, reader.uint32(), undefined, long + 1));
                            break;
                        }
                    case 2: {
                            message.deadline_ms = reader.uint32();
                            break;
                        }
                    case 3: {
                            message.trajectory_id = reader.string();
                            break;
                        }
                    default:
                        reader.skipType(tag & 7, long);
                        break;
                    }
                }
                if (length !== undefined) {
                    if (reader.pos !== end)
                        throw RangeError("index out of range");
                    reader.len = length;
                }
                return message;
            };

            CallToolsRequest.fromObject = function fromObject(object, long) {
                if (object instanceof $root.rlfactory.v1.CallToolsRequest)
                    return object;
                if (!$util.isObject(object))
                    throw TypeError(".rlfactory.v1.CallToolsRequest: object expected");
                if (long === undefined)
                    long = 0;
                if (long > $util.recursionLimit)
                    throw Error("maximum nesting depth exceeded");
                let message = new $root.rlfactory.v1.CallToolsRequest();
                if (object.calls) {
                    if (!Array.isArray(object.calls))
                        throw TypeError(".rlfactory.v1.CallToolsRequest.calls: array expected");
                    message.calls = [];
                    for (let i = 0; i < object.calls.length; ++i) {
                        if (!$util.isObject(object.calls[i]))
                            throw TypeError(".rlfactory.v1.CallToolsRequest.calls: object expected");
                        message.calls[i] = $root.rlfactory.v1.ToolCall.fromObject(object.calls[i], long + 1);
                    }
                }
                if (object.deadline_ms != null)
                    message.deadline_ms = object.deadline_ms >>> 0;
                if (object.trajectory_id != null)
                    message.trajectory_id = String(object.trajectory_id);
                return message;
            };

            CallToolsRequest.toObject = function toObject(message, options, q) {
                if (!options)
                    options = {};
                if (q === undefined)
                    q = 0;
                if (q > $util.recursionLimit)
                    throw Error("max depth exceeded");
                let object = {};
                if (options.arrays || options.defaults)
                    object.calls = [];
                if (options.defaults) {
                    object.deadline_ms = 0;
                    object.trajectory_id = "";
                }
                if (message.calls && message.calls.length) {
                    object.calls = [];
                    for (let j = 0; j < message.calls.length; ++j)
                        object.calls[j] = $root.rlfactory.v1.ToolCall.toObject(message.calls[j], options, q + 1);
                }
                if (message.deadline_ms != null && Object.hasOwnProperty.call(message, "deadline_ms"))
                    object.deadline_ms = message.deadline_ms;
                if (message.trajectory_id != null && Object.hasOwnProperty.call(message, "trajectory_id"))
                    object.trajectory_id = message.trajectory_id;
                return object;
            };

            CallToolsRequest.prototype.toJSON = function toJSON() {
                return this.constructor.toObject(this, $protobuf.util.toJSONOptions);
            };

            return CallToolsRequest;
        })();

        v1.CallToolsResponse = (function() {

            function CallToolsResponse(properties) {
                this.results = [];
                if (properties)
                    for (let keys = Object.keys(properties), i = 0; i < keys.length; ++i)
                        if (properties[keys[i]] != null && keys[i] !== "__proto__")
                            this[keys[i]] = properties[keys[i]];
            }

            CallToolsResponse.prototype.results = $util.emptyArray;

            CallToolsResponse.encode = function encode(message, writer, q) {
                if (!writer)
                    writer = $Writer.create();
                if (q === undefined)
                    q = 0;
                if (q > $util.recursionLimit)
                    throw Error("max depth exceeded");
                if (message.results != null && message.results.length)
                    for (let i = 0; i < message.results.length; ++i)
                        $root.rlfactory.v1.ToolResult.encode(message.results[i], writer.uint32(10).fork(), q + 1).ldelim();
                return writer;
            };

            CallToolsResponse.decode = function decode(reader, length, error, long) {
                if (!(reader instanceof $Reader))
                    reader = $Reader.create(reader);
                if (long === undefined)
                    long = 0;
                if (long > $Reader.recursionLimit)
                    throw Error("maximum nesting depth exceeded");
                let end, message;
                if (length === undefined)
                    end = reader.len;
                else {
                    end = reader.pos + length;
                    if (end > reader.len)
                        throw RangeError("index out of range");
                    length = reader.len;
                    reader.len = end;
                }
                message = new $root.rlfactory.v1.CallToolsResponse();
                while (reader.pos < end) {
                    let tag = reader.uint32();
                    if (tag === error)
                        break;
                    switch (tag >>> 3) {
                    case 1: {
                            if (!(message.results && message.results.length))
                                message.results = [];
                            message.results.push($root.rlfactory.v1.ToolResult.decode(reader, reader.uint32(), undefined, long + 1));
                            break;
                        }
                    default:
                        reader.skipType(tag & 7, long);
                        break;
                    }
                }
                if (length !== undefined) {
                    if (reader.pos !== end)
                        throw RangeError("index out of range");
                    reader.len = length;
                }
                return message;
            };

            CallToolsResponse.fromObject = function fromObject(object, long) {
                if (object instanceof $root.rlfactory.v1.CallToolsResponse)
                    return object;
                if (!$util.isObject(object))
                    throw TypeError(".rlfactory.v1.CallToolsResponse: object expected");
                if (long === undefined)
                    long = 0;
                if (long > $util.recursionLimit)
                    throw Error("maximum nesting depth exceeded");
                let message = new $root.rlfactory.v1.CallToolsResponse();
                if (object.results) {
                    if (!Array.isArray(object.results))
                        throw TypeError(".rlfactory.v1.CallToolsResponse.results: array expected");
                    message.results = [];
                    for (let i = 0; i < object.results.length; ++i) {
                        if (!$util.isObject(object.results[i]))
                            throw TypeError(".rlfactory.v1.CallToolsResponse.results: object expected");
                        message.results[i] = $root.rlfactory.v1.ToolResult.fromObject(object.results[i], long + 1);
                    }
                }
                return message;
            };

            CallToolsResponse.toObject = function toObject(message, options, q) {
                if (!options)
                    options = {};
                if (q === undefined)
                    q = 0;
                if (q > $util.recursionLimit)
                    throw Error("max depth exceeded");
                let object = {};
                if (options.arrays || options.defaults)
                    object.results = [];
                if (message.results && message.results.length) {
                    object.results = [];
                    for (let j = 0; j < message.results.length; ++j)
                        object.results[j] = $root.rlfactory.v1.ToolResult.toObject(message.results[j], options, q + 1);
                }
                return object;
            };

            CallToolsResponse.prototype.toJSON = function toJSON() {
                return this.constructor.toObject(this, $protobuf.util.toJSONOptions);
            };

            return CallToolsResponse;
        })();

        v1.CallToolsStreamRequest = (function() {

            function CallToolsStreamRequest(properties) {
                if (properties)
                    for (let keys = Object.keys(properties), i = 0; i < keys.length; ++i)
                        if (properties[keys[i]] != null && keys[i] !== "__proto__")
                            this[keys[i]] = properties[keys[i]];
            }

            CallToolsStreamRequest.prototype.batch_id = $util.Long ? $util.Long.fromBits(0,0,true) : 0;
            CallToolsStreamRequest.prototype.batch = null;
            CallToolsStreamRequest.prototype.cancel = null;
            CallToolsStreamRequest.prototype.traceparent = "";
            CallToolsStreamRequest.prototype.tracestate = "";

            let $oneOfFields;

            Object.defineProperty(CallToolsStreamRequest.prototype, "kind", {
                get: $util.oneOfGetter($oneOfFields = ["batch", "cancel"]),
                set: $util.oneOfSetter($oneOfFields)
            });

            CallToolsStreamRequest.encode = function encode(message, writer, q) {
                if (!writer)
                    writer = $Writer.create();
                if (q === undefined)
                    q = 0;
                if (q > $util.recursionLimit)
                    throw Error("max depth exceeded");
                if (message.batch_id != null && Object.hasOwnProperty.call(message, "batch_id"))
                    writer.uint32(8).uint64(message.batch_id);
                if (message.batch != null && Object.hasOwnProperty.call(message, "batch"))
                    $root.rlfactory.v1.CallToolsRequest.encode(message.batch, writer.uint32(18).fork(), q + 1).ldelim();
                if (message.cancel != null && Object.hasOwnProperty.call(message, "cancel"))
                    writer.uint32(24).bool(message.cancel);
                if (message.traceparent != null && Object.hasOwnProperty.call(message, "traceparent"))
                    writer.uint32(34).string(message.traceparent);
                if (message.tracestate != null && Object.hasOwnProperty.call(message, "tracestate"))
                    writer.uint32(42).string(message.tracestate);
                return writer;
            };

            CallToolsStreamRequest.decode = function decode(reader, length, error, long) {
                if (!(reader instanceof $Reader))
                    reader = $Reader.create(reader);
                if (long === undefined)
                    long = 0;
                if (long > $Reader.recursionLimit)
                    throw Error("maximum nesting depth exceeded");
                let end, message;
                if (length === undefined)
                    end = reader.len;
                else {
                    end = reader.pos + length;
                    if (end > reader.len)
                        throw RangeError("index out of range");
                    length = reader.len;
                    reader.len = end;
                }
                message = new $root.rlfactory.v1.CallToolsStreamRequest();
                while (reader.pos < end) {
                    let tag = reader.uint32();
                    if (tag === error)
                        break;
                    switch (tag >>> 3) {
                    case 1: {
                            message.batch_id = reader.uint64();
                            break;
                        }
                    case 2: {
                            message.batch = $root.rlfactory.v1.CallToolsRequest.decode(reader, reader.uint32(), undefined, long + 1);
                            break;
                        }
                    case 3: {
                            message.cancel = reader.bool();
                            break;
                        }
                    case 4: {
                            message.traceparent = reader.string();
                            break;
                        }
                    case 5: {
                            message.tracestate = reader.string();
                            break;
                        }
                    default:
                        reader.skipType(tag & 7, long);
                        break;
                    }
                }
                if (length !== undefined) {
                    if (reader.pos !== end)
                        throw RangeError("index out of range");
                    reader.len = length;
                }
                return message;
            };

            CallToolsStreamRequest.fromObject = function fromObject(object, long) {
                if (object instanceof $root.rlfactory.v1.CallToolsStreamRequest)
                    return object;
                if (!$util.isObject(object))
                    throw TypeError(".rlfactory.v1.CallToolsStreamRequest: object expected");
                if (long === undefined)
                    long = 0;
                if (long > $util.recursionLimit)
                    throw Error("maximum nesting depth exceeded");
                let message = new $root.rlfactory.v1.CallToolsStreamRequest();
                if (object.batch_id != null)
                    if ($util.Long)
                        message.batch_id = $util.Long.fromValue(object.batch_id, true);
                    else if (typeof object.batch_id === "string")
                        message.batch_id = parseInt(object.batch_id, 10);
                    else if (typeof object.batch_id === "number")
                        message.batch_id = object.batch_id;
                    else if (typeof object.batch_id === "object")
                        message.batch_id = new $util.LongBits(object.batch_id.low >>> 0, object.batch_id.high >>> 0).toNumber(true);
                if (object.batch != null) {
                    if (!$util.isObject(object.batch))
                        throw TypeError(".rlfactory.v1.CallToolsStreamRequest.batch: object expected");
                    message.batch = $root.rlfactory.v1.CallToolsRequest.fromObject(object.batch, long + 1);
                }
                if (object.cancel != null)
                    message.cancel = Boolean(object.cancel);
                if (object.traceparent != null)
                    message.traceparent = String(object.traceparent);
                if (object.tracestate != null)
                    message.tracestate = String(object.tracestate);
                return message;
            };

            CallToolsStreamRequest.toObject = function toObject(message, options, q) {
                if (!options)
                    options = {};
                if (q === undefined)
                    q = 0;
                if (q > $util.recursionLimit)
                    throw Error("max depth exceeded");
                let object = {};
                if (options.defaults) {
                    if ($util.Long) {
                        let long = new $util.Long(0, 0, true);
                        object.batch_id = options.longs === String ? long.toString() : options.longs === Number ? long.toNumber() : typeof BigInt !== "undefined" && options.longs === BigInt ? long.toBigInt() : long;
                    } else
                        object.batch_id = options.longs === String ? "0" : typeof BigInt !== "undefined" && options.longs === BigInt ? BigInt("0") : 0;
                    object.traceparent = "";
                    object.tracestate = "";
                }
                if (message.batch_id != null && Object.hasOwnProperty.call(message, "batch_id"))
                    if (typeof BigInt !== "undefined" && options.longs === BigInt)
                        object.batch_id = typeof message.batch_id === "number" ? BigInt(message.batch_id) : $util.Long.fromBits(message.batch_id.low >>> 0, message.batch_id.high >>> 0, true).toBigInt();
                    else if (typeof message.batch_id === "number")
                        object.batch_id = options.longs === String ? String(message.batch_id) : message.batch_id;
                    else
                        object.batch_id = options.longs === String ? $util.Long.prototype.toString.call(message.batch_id) : options.longs === Number ? new $util.LongBits(message.batch_id.low >>> 0, message.batch_id.high >>> 0).toNumber(true) : message.batch_id;
                if (message.batch != null && Object.hasOwnProperty.call(message, "batch")) {
                    object.batch = $root.rlfactory.v1.CallToolsRequest.toObject(message.batch, options, q + 1);
                    if (options.oneofs)
                        object.kind = "batch";
                }
                if (message.cancel != null && Object.hasOwnProperty.call(message, "cancel")) {
                    object.cancel = message.cancel;
                    if (options.oneofs)
                        object.kind = "cancel";
                }
                if (message.traceparent != null && Object.hasOwnProperty.call(message, "traceparent"))
                    object.traceparent = message.traceparent;
                if (message.tracestate != null && Object.hasOwnProperty.call(message, "tracestate"))
                    object.tracestate = message.tracestate;
                return object;
            };

            CallToolsStreamRequest.prototype.toJSON = function toJSON() {
                return this.constructor.toObject(this, $protobuf.util.toJSONOptions);
            };

            return CallToolsStreamRequest;
        })();

        v1.CallToolsStreamResponse = (function() {

            function CallToolsStreamResponse(properties) {
                this.results = [];
                if (properties)
                    for (let keys = Object.keys(properties), i = 0; i < keys.length; ++i)
                        if (properties[keys[i]] != null && keys[i] !== "__proto__")
                            this[keys[i]] = properties[keys[i]];
            }

            CallToolsStreamResponse.prototype.batch_id = $util.Long ? $util.Long.fromBits(0,0,true) : 0;
            CallToolsStreamResponse.prototype.results = $util.emptyArray;
            CallToolsStreamResponse.prototype.status_code = 0;
            CallToolsStreamResponse.prototype.status_details = "";

            CallToolsStreamResponse.encode = function encode(message, writer, q) {
                if (!writer)
                    writer = $Writer.create();
                if (q === undefined)
                    q = 0;
                if (q > $util.recursionLimit)
                    throw Error("max depth exceeded");
                if (message.batch_id != null && Object.hasOwnProperty.call(message, "batch_id"))
                    writer.uint32(8).uint64(message.batch_id);
                if (message.results != null && message.results.length)
                    for (let i = 0; i < message.results.length; ++i)
                        $root.rlfactory.v1.ToolResult.encode(message.results[i], writer.uint32(18).fork(), q + 1).ldelim();
                if (message.status_code != null && Object.hasOwnProperty.call(message, "status_code"))
                    writer.uint32(24).uint32(message.status_code);
                if (message.status_details != null && Object.hasOwnProperty.call(message, "status_details"))
                    writer.uint32(34).string(message.status_details);
                return writer;
            };

            CallToolsStreamResponse.decode = function decode(reader, length, error, long) {
                if (!(reader instanceof $Reader))
                    reader = $Reader.create(reader);
                if (long === undefined)
                    long = 0;
                if (long > $Reader.recursionLimit)
                    throw Error("maximum nesting depth exceeded");
                let end, message;
                if (length === undefined)
                    end = reader.len;
                else {
                    end = reader.pos + length;
                    if (end > reader.len)
                        throw RangeError("index out of range");
                    length = reader.len;
                    reader.len = end;
                }
                message = new $root.rlfactory.v1.CallToolsStreamResponse();
                while (reader.pos < end) {
                    let tag = reader.uint32();
                    if (tag === error)
                        break;
                    switch (tag >>> 3) {
                    case 1: {
                            message.batch_id = reader.uint64();
                            break;
                        }
                    case 2: {
                            if (!(message.results && message.results.length))
                                message.results = [];
                            message.results.push($root.rlfactory.v1.ToolResult.decode(reader, reader.uint32(), undefined, long + 1));
                            break;
                        }
                    case 3: {
                            message.status_code = reader.uint32();
                            break;
                        }
                    case 4: {
                            message.status_details = reader.string();
                            break;
                        }
                    default:
                        reader.skipType(tag & 7, long);
                        break;
                    }
                }
                if (length !== undefined) {
                    if (reader.pos !== end)
                        throw RangeError("index out of range");
                    reader.len = length;
                }
                return message;
            };

            CallToolsStreamResponse.fromObject = function fromObject(object, long) {
                if (object instanceof $root.rlfactory.v1.CallToolsStreamResponse)
                    return object;
                if (!$util.isObject(object))
                    throw TypeError(".rlfactory.v1.CallToolsStreamResponse: object expected");
                if (long === undefined)
                    long = 0;
                if (long > $util.recursionLimit)
                    throw Error("maximum nesting depth exceeded");
                let message = new $root.rlfactory.v1.CallToolsStreamResponse();
                if (object.batch_id != null)
                    if ($util.Long)
                        message.batch_id = $util.Long.fromValue(object.batch_id, true);
                    else if (typeof object.batch_id === "string")
                        message.batch_id = parseInt(object.batch_id, 10);
                    else if (typeof object.batch_id === "number")
                        message.batch_id = object.batch_id;
                    else if (typeof object.batch_id === "object")
                        message.batch_id = new $util.LongBits(object.batch_id.low >>> 0, object.batch_id.high >>> 0).toNumber(true);
                if (object.results) {
                    if (!Array.isArray(object.results))
                        throw TypeError(".rlfactory.v1.CallToolsStreamResponse.results: array expected");
                    message.results = [];
                    for (let i = 0; i < object.results.length; ++i) {
                        if (!$util.isObject(object.results[i]))
                            throw TypeError(".rlfactory.v1.CallToolsStreamResponse.results: object expected");
                        message.results[i] = $root.rlfactory.v1.ToolResult.fromObject(object.results[i], long + 1);
                    }
                }
                if (object.status_code != null)
                    message.status_code = object.status_code >>> 0;
                if (object.status_details != null)
                    message.status_details = String(object.status_details);
                return message;
            };

            CallToolsStreamResponse.toObject = function toObject(message, options, q) {
                if (!options)
                    options = {};
                if (q === undefined)
                    q = 0;
                if (q > $util.recursionLimit)
                    throw Error("max depth exceeded");
                let object = {};
                if (options.arrays || options.defaults)
                    object.results = [];
                if (options.defaults) {
                    if ($util.Long) {
                        let long = new $util.Long(0, 0, true);
                        object.batch_id = options.longs === String ? long.toString() : options.longs === Number ? long.toNumber() : typeof BigInt !== "undefined" && options.longs === BigInt ? long.toBigInt() : long;
                    } else
                        object.batch_id = options.longs === String ? "0" : typeof BigInt !== "undefined" && options.longs === BigInt ? BigInt("0") : 0;
                    object.status_code = 0;
                    object.status_details = "";
                }
                if (message.batch_id != null && Object.hasOwnProperty.call(message, "batch_id"))
                    if (typeof BigInt !== "undefined" && options.longs === BigInt)
                        object.batch_id = typeof message.batch_id === "number" ? BigInt(message.batch_id) : $util.Long.fromBits(message.batch_id.low >>> 0, message.batch_id.high >>> 0, true).toBigInt();
                    else if (typeof message.batch_id === "number")
                        object.batch_id = options.longs === String ? String(message.batch_id) : message.batch_id;
                    else
                        object.batch_id = options.longs === String ? $util.Long.prototype.toString.call(message.batch_id) : options.longs === Number ? new $util.LongBits(message.batch_id.low >>> 0, message.batch_id.high >>> 0).toNumber(true) : message.batch_id;
                if (message.results && message.results.length) {
                    object.results = [];
                    for (let j = 0; j < message.results.length; ++j)
                        object.results[j] = $root.rlfactory.v1.ToolResult.toObject(message.results[j], options, q + 1);
                }
                if (message.status_code != null && Object.hasOwnProperty.call(message, "status_code"))
                    object.status_code = message.status_code;
                if (message.status_details != null && Object.hasOwnProperty.call(message, "status_details"))
                    object.status_details = message.status_details;
                return object;
            };

            CallToolsStreamResponse.prototype.toJSON = function toJSON() {
                return this.constructor.toObject(this, $protobuf.util.toJSONOptions);
            };

            return CallToolsStreamResponse;
        })();

        v1.ErrorCode = (function() {
            const valuesById = {}, values = Object.create(valuesById);
            values[valuesById[0] = "OK"] = 0;
            values[valuesById[1] = "TIMEOUT"] = 1;
            values[valuesById[2] = "UNAVAILABLE"] = 2;
            values[valuesById[3] = "CIRCUIT_OPEN"] = 3;
            values[valuesById[4] = "UNKNOWN_TOOL"] = 4;
            values[valuesById[5] = "INVALID_ARGUMENTS"] = 5;
            values[valuesById[6] = "RATE_LIMITED"] = 6;
            values[valuesById[7] = "OUTPUT_TOO_LARGE"] = 7;
            values[valuesById[8] = "INTERNAL"] = 8;
            values[valuesById[9] = "CANCELLED"] = 9;
            values[valuesById[10] = "UPSTREAM_ERROR"] = 10;
            values[valuesById[11] = "ARGUMENTS_TOO_LARGE"] = 11;
            values[valuesById[12] = "EPISODE_NOT_FOUND"] = 12;
            values[valuesById[13] = "EPISODE_LOST"] = 13;
            values[valuesById[14] = "UNSUPPORTED"] = 14;
            values[valuesById[15] = "BUDGET_EXCEEDED"] = 15;
            return values;
        })();

        v1.ToolResult = (function() {

            function ToolResult(properties) {
                this.content = [];
                if (properties)
                    for (let keys = Object.keys(properties), i = 0; i < keys.length; ++i)
                        if (properties[keys[i]] != null && keys[i] !== "__proto__")
                            this[keys[i]] = properties[keys[i]];
            }

            ToolResult.prototype.name = "";
            ToolResult.prototype.call_id = "";
            ToolResult.prototype.content = $util.emptyArray;
            ToolResult.prototype.structured_content_json = "";
            ToolResult.prototype.is_error = false;
            ToolResult.prototype.error_code = 0;
            ToolResult.prototype.error_message = "";
            ToolResult.prototype.latency_ms = 0;
            ToolResult.prototype.cache_hit = false;
            ToolResult.prototype.attempts = 0;
            ToolResult.prototype.truncated = false;
            ToolResult.prototype.usage = null;

            let $oneOfFields;

            // Virtual OneOf for proto3 optional field
            Object.defineProperty(ToolResult.prototype, "_usage", {
                get: $util.oneOfGetter($oneOfFields = ["usage"]),
                set: $util.oneOfSetter($oneOfFields)
            });

            ToolResult.encode = function encode(message, writer, q) {
                if (!writer)
                    writer = $Writer.create();
                if (q === undefined)
                    q = 0;
                if (q > $util.recursionLimit)
                    throw Error("max depth exceeded");
                if (message.name != null && Object.hasOwnProperty.call(message, "name"))
                    writer.uint32(10).string(message.name);
                if (message.call_id != null && Object.hasOwnProperty.call(message, "call_id"))
                    writer.uint32(18).string(message.call_id);
                if (message.content != null && message.content.length)
                    for (let i = 0; i < message.content.length; ++i)
                        $root.rlfactory.v1.Content.encode(message.content[i], writer.uint32(26).fork(), q + 1).ldelim();
                if (message.structured_content_json != null && Object.hasOwnProperty.call(message, "structured_content_json"))
                    writer.uint32(34).string(message.structured_content_json);
                if (message.is_error != null && Object.hasOwnProperty.call(message, "is_error"))
                    writer.uint32(40).bool(message.is_error);
                if (message.error_code != null && Object.hasOwnProperty.call(message, "error_code"))
                    writer.uint32(48).int32(message.error_code);
                if (message.error_message != null && Object.hasOwnProperty.call(message, "error_message"))
                    writer.uint32(58).string(message.error_message);
                if (message.latency_ms != null && Object.hasOwnProperty.call(message, "latency_ms"))
                    writer.uint32(65).double(message.latency_ms);
                if (message.cache_hit != null && Object.hasOwnProperty.call(message, "cache_hit"))
                    writer.uint32(72).bool(message.cache_hit);
                if (message.attempts != null && Object.hasOwnProperty.call(message, "attempts"))
                    writer.uint32(80).uint32(message.attempts);
                if (message.truncated != null && Object.hasOwnProperty.call(message, "truncated"))
                    writer.uint32(88).bool(message.truncated);
                if (message.usage != null && Object.hasOwnProperty.call(message, "usage"))
                    $root.rlfactory.v1.ModelUsage.encode(message.usage, writer.uint32(98).fork(), q + 1).ldelim();
                return writer;
            };

            ToolResult.decode = function decode(reader, length, error, long) {
                if (!(reader instanceof $Reader))
                    reader = $Reader.create(reader);
                if (long === undefined)
                    long = 0;
                if (long > $Reader.recursionLimit)
                    throw Error("maximum nesting depth exceeded");
                let end, message;
                if (length === undefined)
                    end = reader.len;
                else {
                    end = reader.pos + length;
                    if (end > reader.len)
                        throw RangeError("index out of range");
                    length = reader.len;
                    reader.len = end;
                }
                message = new $root.rlfactory.v1.ToolResult();
                while (reader.pos < end) {
                    let tag = reader.uint32();
                    if (tag === error)
                        break;
                    switch (tag >>> 3) {
                    case 1: {
                            message.name = reader.string();
                            break;
                        }
                    case 2: {
                            message.call_id = reader.string();
                            break;
                        }
                    case 3: {
                            if (!(message.content && message.content.length))
                                message.content = [];
                            message.content.push($root.rlfactory.v1.Content.decode(reader, reader.uint32(), undefined, long + 1));
                            break;
                        }
                    case 4: {
                            message.structured_content_json = reader.string();
                            break;
                        }
                    case 5: {
                            message.is_error = reader.bool();
                            break;
                        }
                    case 6: {
                            message.error_code = reader.int32();
                            break;
                        }
                    case 7: {
                            message.error_message = reader.string();
                            break;
                        }
                    case 8: {
                            message.latency_ms = reader.double();
                            break;
                        }
                    case 9: {
                            message.cache_hit = reader.bool();
                            break;
                        }
                    case 10: {
                            message.attempts = reader.uint32();
                            break;
                        }
                    case 11: {
                            message.truncated = reader.bool();
                            break;
                        }
                    case 12: {
                            message.usage = $root.rlfactory.v1.ModelUsage.decode(reader, reader.uint32(), undefined, long + 1);
                            break;
                        }
                    default:
                        reader.skipType(tag & 7, long);
                        break;
                    }
                }
                if (length !== undefined) {
                    if (reader.pos !== end)
                        throw RangeError("index out of range");
                    reader.len = length;
                }
                return message;
            };

            ToolResult.fromObject = function fromObject(object, long) {
                if (object instanceof $root.rlfactory.v1.ToolResult)
                    return object;
                if (!$util.isObject(object))
                    throw TypeError(".rlfactory.v1.ToolResult: object expected");
                if (long === undefined)
                    long = 0;
                if (long > $util.recursionLimit)
                    throw Error("maximum nesting depth exceeded");
                let message = new $root.rlfactory.v1.ToolResult();
                if (object.name != null)
                    message.name = String(object.name);
                if (object.call_id != null)
                    message.call_id = String(object.call_id);
                if (object.content) {
                    if (!Array.isArray(object.content))
                        throw TypeError(".rlfactory.v1.ToolResult.content: array expected");
                    message.content = [];
                    for (let i = 0; i < object.content.length; ++i) {
                        if (!$util.isObject(object.content[i]))
                            throw TypeError(".rlfactory.v1.ToolResult.content: object expected");
                        message.content[i] = $root.rlfactory.v1.Content.fromObject(object.content[i], long + 1);
                    }
                }
                if (object.structured_content_json != null)
                    message.structured_content_json = String(object.structured_content_json);
                if (object.is_error != null)
                    message.is_error = Boolean(object.is_error);
                switch (object.error_code) {
                default:
                    if (typeof object.error_code === "number") {
                        message.error_code = object.error_code;
                        break;
                    }
                    break;
                case "OK":
                case 0:
                    message.error_code = 0;
                    break;
                case "TIMEOUT":
                case 1:
                    message.error_code = 1;
                    break;
                case "UNAVAILABLE":
                case 2:
                    message.error_code = 2;
                    break;
                case "CIRCUIT_OPEN":
                case 3:
                    message.error_code = 3;
                    break;
                case "UNKNOWN_TOOL":
                case 4:
                    message.error_code = 4;
                    break;
                case "INVALID_ARGUMENTS":
                case 5:
                    message.error_code = 5;
                    break;
                case "RATE_LIMITED":
                case 6:
                    message.error_code = 6;
                    break;
                case "OUTPUT_TOO_LARGE":
                case 7:
                    message.error_code = 7;
                    break;
                case "INTERNAL":
                case 8:
                    message.error_code = 8;
                    break;
                case "CANCELLED":
                case 9:
                    message.error_code = 9;
                    break;
                case "UPSTREAM_ERROR":
                case 10:
                    message.error_code = 10;
                    break;
                case "ARGUMENTS_TOO_LARGE":
                case 11:
                    message.error_code = 11;
                    break;
                case "EPISODE_NOT_FOUND":
                case 12:
                    message.error_code = 12;
                    break;
                case "EPISODE_LOST":
                case 13:
                    message.error_code = 13;
                    break;
                case "UNSUPPORTED":
                case 14:
                    message.error_code = 14;
                    break;
                case "BUDGET_EXCEEDED":
                case 15:
                    message.error_code = 15;
                    break;
                }
                if (object.error_message != null)
                    message.error_message = String(object.error_message);
                if (object.latency_ms != null)
                    message.latency_ms = Number(object.latency_ms);
                if (object.cache_hit != null)
                    message.cache_hit = Boolean(object.cache_hit);
                if (object.attempts != null)
                    message.attempts = object.attempts >>> 0;
                if (object.truncated != null)
                    message.truncated = Boolean(object.truncated);
                if (object.usage != null) {
                    if (!$util.isObject(object.usage))
                        throw TypeError(".rlfactory.v1.ToolResult.usage: object expected");
                    message.usage = $root.rlfactory.v1.ModelUsage.fromObject(object.usage, long + 1);
                }
                return message;
            };

            ToolResult.toObject = function toObject(message, options, q) {
                if (!options)
                    options = {};
                if (q === undefined)
                    q = 0;
                if (q > $util.recursionLimit)
                    throw Error("max depth exceeded");
                let object = {};
                if (options.arrays || options.defaults)
                    object.content = [];
                if (options.defaults) {
                    object.name = "";
                    object.call_id = "";
                    object.structured_content_json = "";
                    object.is_error = false;
                    object.error_code = options.enums === String ? "OK" : 0;
                    object.error_message = "";
                    object.latency_ms = 0;
                    object.cache_hit = false;
                    object.attempts = 0;
                    object.truncated = false;
                }
                if (message.name != null && Object.hasOwnProperty.call(message, "name"))
                    object.name = message.name;
                if (message.call_id != null && Object.hasOwnProperty.call(message, "call_id"))
                    object.call_id = message.call_id;
                if (message.content && message.content.length) {
                    object.content = [];
                    for (let j = 0; j < message.content.length; ++j)
                        object.content[j] = $root.rlfactory.v1.Content.toObject(message.content[j], options, q + 1);
                }
                if (message.structured_content_json != null && Object.hasOwnProperty.call(message, "structured_content_json"))
                    object.structured_content_json = message.structured_content_json;
                if (message.is_error != null && Object.hasOwnProperty.call(message, "is_error"))
                    object.is_error = message.is_error;
                if (message.error_code != null && Object.hasOwnProperty.call(message, "error_code"))
                    object.error_code = options.enums === String ? $root.rlfactory.v1.ErrorCode[message.error_code] === undefined ? message.error_code : $root.rlfactory.v1.ErrorCode[message.error_code] : message.error_code;
                if (message.error_message != null && Object.hasOwnProperty.call(message, "error_message"))
                    object.error_message = message.error_message;
                if (message.latency_ms != null && Object.hasOwnProperty.call(message, "latency_ms"))
                    object.latency_ms = options.json && !isFinite(message.latency_ms) ? String(message.latency_ms) : message.latency_ms;
                if (message.cache_hit != null && Object.hasOwnProperty.call(message, "cache_hit"))
                    object.cache_hit = message.cache_hit;
                if (message.attempts != null && Object.hasOwnProperty.call(message, "attempts"))
                    object.attempts = message.attempts;
                if (message.truncated != null && Object.hasOwnProperty.call(message, "truncated"))
                    object.truncated = message.truncated;
                if (message.usage != null && Object.hasOwnProperty.call(message, "usage")) {
                    object.usage = $root.rlfactory.v1.ModelUsage.toObject(message.usage, options, q + 1);
                    if (options.oneofs)
                        object._usage = "usage";
                }
                return object;
            };

            ToolResult.prototype.toJSON = function toJSON() {
                return this.constructor.toObject(this, $protobuf.util.toJSONOptions);
            };

            return ToolResult;
        })();

        v1.ModelUsage = (function() {

            function ModelUsage(properties) {
                if (properties)
                    for (let keys = Object.keys(properties), i = 0; i < keys.length; ++i)
                        if (properties[keys[i]] != null && keys[i] !== "__proto__")
                            this[keys[i]] = properties[keys[i]];
            }

            ModelUsage.prototype.prompt_tokens = 0;
            ModelUsage.prototype.completion_tokens = 0;
            ModelUsage.prototype.cost_usd = null;
            ModelUsage.prototype.model = "";

            let $oneOfFields;

            // Virtual OneOf for proto3 optional field
            Object.defineProperty(ModelUsage.prototype, "_cost_usd", {
                get: $util.oneOfGetter($oneOfFields = ["cost_usd"]),
                set: $util.oneOfSetter($oneOfFields)
            });

            ModelUsage.encode = function encode(message, writer, q) {
                if (!writer)
                    writer = $Writer.create();
                if (q === undefined)
                    q = 0;
                if (q > $util.recursionLimit)
                    throw Error("max depth exceeded");
                if (message.prompt_tokens != null && Object.hasOwnProperty.call(message, "prompt_tokens"))
                    writer.uint32(8).uint32(message.prompt_tokens);
                if (message.completion_tokens != null && Object.hasOwnProperty.call(message, "completion_tokens"))
                    writer.uint32(16).uint32(message.completion_tokens);
                if (message.cost_usd != null && Object.hasOwnProperty.call(message, "cost_usd"))
                    writer.uint32(25).double(message.cost_usd);
                if (message.model != null && Object.hasOwnProperty.call(message, "model"))
                    writer.uint32(34).string(message.model);
                return writer;
            };

            ModelUsage.decode = function decode(reader, length, error, long) {
                if (!(reader instanceof $Reader))
                    reader = $Reader.create(reader);
                if (long === undefined)
                    long = 0;
                if (long > $Reader.recursionLimit)
                    throw Error("maximum nesting depth exceeded");
                let end, message;
                if (length === undefined)
                    end = reader.len;
                else {
                    end = reader.pos + length;
                    if (end > reader.len)
                        throw RangeError("index out of range");
                    length = reader.len;
                    reader.len = end;
                }
                message = new $root.rlfactory.v1.ModelUsage();
                while (reader.pos < end) {
                    let tag = reader.uint32();
                    if (tag === error)
                        break;
                    switch (tag >>> 3) {
                    case 1: {
                            message.prompt_tokens = reader.uint32();
                            break;
                        }
                    case 2: {
                            message.completion_tokens = reader.uint32();
                            break;
                        }
                    case 3: {
                            message.cost_usd = reader.double();
                            break;
                        }
                    case 4: {
                            message.model = reader.string();
                            break;
                        }
                    default:
                        reader.skipType(tag & 7, long);
                        break;
                    }
                }
                if (length !== undefined) {
                    if (reader.pos !== end)
                        throw RangeError("index out of range");
                    reader.len = length;
                }
                return message;
            };

            ModelUsage.fromObject = function fromObject(object, long) {
                if (object instanceof $root.rlfactory.v1.ModelUsage)
                    return object;
                if (!$util.isObject(object))
                    throw TypeError(".rlfactory.v1.ModelUsage: object expected");
                if (long === undefined)
                    long = 0;
                if (long > $util.recursionLimit)
                    throw Error("maximum nesting depth exceeded");
                let message = new $root.rlfactory.v1.ModelUsage();
                if (object.prompt_tokens != null)
                    message.prompt_tokens = object.prompt_tokens >>> 0;
                if (object.completion_tokens != null)
                    message.completion_tokens = object.completion_tokens >>> 0;
                if (object.cost_usd != null)
                    message.cost_usd = Number(object.cost_usd);
                if (object.model != null)
                    message.model = String(object.model);
                return message;
            };

            ModelUsage.toObject = function toObject(message, options, q) {
                if (!options)
                    options = {};
                if (q === undefined)
                    q = 0;
                if (q > $util.recursionLimit)
                    throw Error("max depth exceeded");
                let object = {};
                if (options.defaults) {
                    object.prompt_tokens = 0;
                    object.completion_tokens = 0;
                    object.model = "";
                }
                if (message.prompt_tokens != null && Object.hasOwnProperty.call(message, "prompt_tokens"))
                    object.prompt_tokens = message.prompt_tokens;
                if (message.completion_tokens != null && Object.hasOwnProperty.call(message, "completion_tokens"))
                    object.completion_tokens = message.completion_tokens;
                if (message.cost_usd != null && Object.hasOwnProperty.call(message, "cost_usd")) {
                    object.cost_usd = options.json && !isFinite(message.cost_usd) ? String(message.cost_usd) : message.cost_usd;
                    if (options.oneofs)
                        object._cost_usd = "cost_usd";
                }
                if (message.model != null && Object.hasOwnProperty.call(message, "model"))
                    object.model = message.model;
                return object;
            };

            ModelUsage.prototype.toJSON = function toJSON() {
                return this.constructor.toObject(this, $protobuf.util.toJSONOptions);
            };

            return ModelUsage;
        })();

        v1.Content = (function() {

            function Content(properties) {
                if (properties)
                    for (let keys = Object.keys(properties), i = 0; i < keys.length; ++i)
                        if (properties[keys[i]] != null && keys[i] !== "__proto__")
                            this[keys[i]] = properties[keys[i]];
            }

            Content.prototype.text = null;
            Content.prototype.image = null;
            Content.prototype.audio = null;
            Content.prototype.resource = null;
            Content.prototype.resource_link = null;

            let $oneOfFields;

            Object.defineProperty(Content.prototype, "kind", {
                get: $util.oneOfGetter($oneOfFields = ["text", "image", "audio", "resource", "resource_link"]),
                set: $util.oneOfSetter($oneOfFields)
            });

            Content.encode = function encode(message, writer, q) {
                if (!writer)
                    writer = $Writer.create();
                if (q === undefined)
                    q = 0;
                if (q > $util.recursionLimit)
                    throw Error("max depth exceeded");
                if (message.text != null && Object.hasOwnProperty.call(message, "text"))
                    $root.rlfactory.v1.TextContent.encode(message.text, writer.uint32(10).fork(), q + 1).ldelim();
                if (message.image != null && Object.hasOwnProperty.call(message, "image"))
                    $root.rlfactory.v1.ImageContent.encode(message.image, writer.uint32(18).fork(), q + 1).ldelim();
                if (message.audio != null && Object.hasOwnProperty.call(message, "audio"))
                    $root.rlfactory.v1.AudioContent.encode(message.audio, writer.uint32(26).fork(), q + 1).ldelim();
                if (message.resource != null && Object.hasOwnProperty.call(message, "resource"))
                    $root.rlfactory.v1.EmbeddedResource.encode(message.resource, writer.uint32(34).fork(), q + 1).ldelim();
                if (message.resource_link != null && Object.hasOwnProperty.call(message, "resource_link"))
                    $root.rlfactory.v1.ResourceLink.encode(message.resource_link, writer.uint32(42).fork(), q + 1).ldelim();
                return writer;
            };

            Content.decode = function decode(reader, length, error, long) {
                if (!(reader instanceof $Reader))
                    reader = $Reader.create(reader);
                if (long === undefined)
                    long = 0;
                if (long > $Reader.recursionLimit)
                    throw Error("maximum nesting depth exceeded");
                let end, message;
                if (length === undefined)
                    end = reader.len;
                else {
                    end = reader.pos + length;
                    if (end > reader.len)
                        throw RangeError("index out of range");
                    length = reader.len;
                    reader.len = end;
                }
                message = new $root.rlfactory.v1.Content();
                while (reader.pos < end) {
                    let tag = reader.uint32();
                    if (tag === error)
                        break;
                    switch (tag >>> 3) {
                    case 1: {
                            message.text = $root.rlfactory.v1.TextContent.decode(reader, reader.uint32(), undefined, long + 1);
                            break;
                        }
                    case 2: {
                            message.image = $root.rlfactory.v1.ImageContent.decode(reader, reader.uint32(), undefined, long + 1);
                            break;
                        }
                    case 3: {
                            message.audio = $root.rlfactory.v1.AudioContent.decode(reader, reader.uint32(), undefined, long + 1);
                            break;
                        }
                    case 4: {
                            message.resource = $root.rlfactory.v1.EmbeddedResource.decode(reader, reader.uint32(), undefined, long + 1);
                            break;
                        }
                    case 5: {
                            message.resource_link = $root.rlfactory.v1.ResourceLink.decode(reader, reader.uint32(), undefined, long + 1);
                            break;
                        }
                    default:
                        reader.skipType(tag & 7, long);
                        break;
                    }
                }
                if (length !== undefined) {
                    if (reader.pos !== end)
                        throw RangeError("index out of range");
                    reader.len = length;
                }
                return message;
            };

            Content.fromObject = function fromObject(object, long) {
                if (object instanceof $root.rlfactory.v1.Content)
                    return object;
                if (!$util.isObject(object))
                    throw TypeError(".rlfactory.v1.Content: object expected");
                if (long === undefined)
                    long = 0;
                if (long > $util.recursionLimit)
                    throw Error("maximum nesting depth exceeded");
                let message = new $root.rlfactory.v1.Content();
                if (object.text != null) {
                    if (!$util.isObject(object.text))
                        throw TypeError(".rlfactory.v1.Content.text: object expected");
                    message.text = $root.rlfactory.v1.TextContent.fromObject(object.text, long + 1);
                }
                if (object.image != null) {
                    if (!$util.isObject(object.image))
                        throw TypeError(".rlfactory.v1.Content.image: object expected");
                    message.image = $root.rlfactory.v1.ImageContent.fromObject(object.image, long + 1);
                }
                if (object.audio != null) {
                    if (!$util.isObject(object.audio))
                        throw TypeError(".rlfactory.v1.Content.audio: object expected");
                    message.audio = $root.rlfactory.v1.AudioContent.fromObject(object.audio, long + 1);
                }
                if (object.resource != null) {
                    if (!$util.isObject(object.resource))
                        throw TypeError(".rlfactory.v1.Content.resource: object expected");
                    message.resource = $root.rlfactory.v1.EmbeddedResource.fromObject(object.resource, long + 1);
                }
                if (object.resource_link != null) {
                    if (!$util.isObject(object.resource_link))
                        throw TypeError(".rlfactory.v1.Content.resource_link: object expected");
                    message.resource_link = $root.rlfactory.v1.ResourceLink.fromObject(object.resource_link, long + 1);
                }
                return message;
            };

            Content.toObject = function toObject(message, options, q) {
                if (!options)
                    options = {};
                if (q === undefined)
                    q = 0;
                if (q > $util.recursionLimit)
                    throw Error("max depth exceeded");
                let object = {};
                if (message.text != null && Object.hasOwnProperty.call(message, "text")) {
                    object.text = $root.rlfactory.v1.TextContent.toObject(message.text, options, q + 1);
                    if (options.oneofs)
                        object.kind = "text";
                }
                if (message.image != null && Object.hasOwnProperty.call(message, "image")) {
                    object.image = $root.rlfactory.v1.ImageContent.toObject(message.image, options, q + 1);
                    if (options.oneofs)
                        object.kind = "image";
                }
                if (message.audio != null && Object.hasOwnProperty.call(message, "audio")) {
                    object.audio = $root.rlfactory.v1.AudioContent.toObject(message.audio, options, q + 1);
                    if (options.oneofs)
                        object.kind = "audio";
                }
                if (message.resource != null && Object.hasOwnProperty.call(message, "resource")) {
                    object.resource = $root.rlfactory.v1.EmbeddedResource.toObject(message.resource, options, q + 1);
                    if (options.oneofs)
                        object.kind = "resource";
                }
                if (message.resource_link != null && Object.hasOwnProperty.call(message, "resource_link")) {
                    object.resource_link = $root.rlfactory.v1.ResourceLink.toObject(message.resource_link, options, q + 1);
                    if (options.oneofs)
                        object.kind = "resource_link";
                }
                return object;
            };

            Content.prototype.toJSON = function toJSON() {
                return this.constructor.toObject(this, $protobuf.util.toJSONOptions);
            };

            return Content;
        })();

        v1.TextContent = (function() {

            function TextContent(properties) {
                if (properties)
                    for (let keys = Object.keys(properties), i = 0; i < keys.length; ++i)
                        if (properties[keys[i]] != null && keys[i] !== "__proto__")
                            this[keys[i]] = properties[keys[i]];
            }

            TextContent.prototype.text = "";

            TextContent.encode = function encode(message, writer, q) {
                if (!writer)
                    writer = $Writer.create();
                if (q === undefined)
                    q = 0;
                if (q > $util.recursionLimit)
                    throw Error("max depth exceeded");
                if (message.text != null && Object.hasOwnProperty.call(message, "text"))
                    writer.uint32(10).string(message.text);
                return writer;
            };

            TextContent.decode = function decode(reader, length, error, long) {
                if (!(reader instanceof $Reader))
                    reader = $Reader.create(reader);
                if (long === undefined)
                    long = 0;
                if (long > $Reader.recursionLimit)
                    throw Error("maximum nesting depth exceeded");
                let end, message;
                if (length === undefined)
                    end = reader.len;
                else {
                    end = reader.pos + length;
                    if (end > reader.len)
                        throw RangeError("index out of range");
                    length = reader.len;
                    reader.len = end;
                }
                message = new $root.rlfactory.v1.TextContent();
                while (reader.pos < end) {
                    let tag = reader.uint32();
                    if (tag === error)
                        break;
                    switch (tag >>> 3) {
                    case 1: {
                            message.text = reader.string();
                            break;
                        }
                    default:
                        reader.skipType(tag & 7, long);
                        break;
                    }
                }
                if (length !== undefined) {
                    if (reader.pos !== end)
                        throw RangeError("index out of range");
                    reader.len = length;
                }
                return message;
            };

            TextContent.fromObject = function fromObject(object, long) {
                if (object instanceof $root.rlfactory.v1.TextContent)
                    return object;
                if (!$util.isObject(object))
                    throw TypeError(".rlfactory.v1.TextContent: object expected");
                if (long === undefined)
                    long = 0;
                if (long > $util.recursionLimit)
                    throw Error("maximum nesting depth exceeded");
                let message = new $root.rlfactory.v1.TextContent();
                if (object.text != null)
                    message.text = String(object.text);
                return message;
            };

            TextContent.toObject = function toObject(message, options, q) {
                if (!options)
                    options = {};
                if (q === undefined)
                    q = 0;
                if (q > $util.recursionLimit)
                    throw Error("max depth exceeded");
                let object = {};
                if (options.defaults)
                    object.text = "";
                if (message.text != null && Object.hasOwnProperty.call(message, "text"))
                    object.text = message.text;
                return object;
            };

            TextContent.prototype.toJSON = function toJSON() {
                return this.constructor.toObject(this, $protobuf.util.toJSONOptions);
            };

            return TextContent;
        })();

        v1.ImageContent = (function() {

            function ImageContent(properties) {
                if (properties)
                    for (let keys = Object.keys(properties), i = 0; i < keys.length; ++i)
                        if (properties[keys[i]] != null && keys[i] !== "__proto__")
                            this[keys[i]] = properties[keys[i]];
            }

            ImageContent.prototype.data = $util.newBuffer([]);
            ImageContent.prototype.mime_type = "";

            ImageContent.encode = function encode(message, writer, q) {
                if (!writer)
                    writer = $Writer.create();
                if (q === undefined)
                    q = 0;
                if (q > $util.recursionLimit)
                    throw Error("max depth exceeded");
                if (message.data != null && Object.hasOwnProperty.call(message, "data"))
                    writer.uint32(10).bytes(message.data);
                if (message.mime_type != null && Object.hasOwnProperty.call(message, "mime_type"))
                    writer.uint32(18).string(message.mime_type);
                return writer;
            };

            ImageContent.decode = function decode(reader, length, error, long) {
                if (!(reader instanceof $Reader))
                    reader = $Reader.create(reader);
                if (long === undefined)
                    long = 0;
                if (long > $Reader.recursionLimit)
                    throw Error("maximum nesting depth exceeded");
                let end, message;
                if (length === undefined)
                    end = reader.len;
                else {
                    end = reader.pos + length;
                    if (end > reader.len)
                        throw RangeError("index out of range");
                    length = reader.len;
                    reader.len = end;
                }
                message = new $root.rlfactory.v1.ImageContent();
                while (reader.pos < end) {
                    let tag = reader.uint32();
                    if (tag === error)
                        break;
                    switch (tag >>> 3) {
                    case 1: {
                            message.data = reader.bytes();
                            break;
                        }
                    case 2: {
                            message.mime_type = reader.string();
                            break;
                        }
                    default:
                        reader.skipType(tag & 7, long);
                        break;
                    }
                }
                if (length !== undefined) {
                    if (reader.pos !== end)
                        throw RangeError("index out of range");
                    reader.len = length;
                }
                return message;
            };

            ImageContent.fromObject = function fromObject(object, long) {
                if (object instanceof $root.rlfactory.v1.ImageContent)
                    return object;
                if (!$util.isObject(object))
                    throw TypeError(".rlfactory.v1.ImageContent: object expected");
                if (long === undefined)
                    long = 0;
                if (long > $util.recursionLimit)
                    throw Error("maximum nesting depth exceeded");
                let message = new $root.rlfactory.v1.ImageContent();
                if (object.data != null)
                    if (typeof object.data === "string")
                        $util.base64.decode(object.data, message.data = $util.newBuffer($util.base64.length(object.data)), 0);
                    else if (object.data.length >= 0)
                        message.data = object.data;
                if (object.mime_type != null)
                    message.mime_type = String(object.mime_type);
                return message;
            };

            ImageContent.toObject = function toObject(message, options, q) {
                if (!options)
                    options = {};
                if (q === undefined)
                    q = 0;
                if (q > $util.recursionLimit)
                    throw Error("max depth exceeded");
                let object = {};
                if (options.defaults) {
                    if (options.bytes === String)
                        object.data = "";
                    else {
                        object.data = [];
                        if (options.bytes !== Array)
                            object.data = $util.newBuffer(object.data);
                    }
                    object.mime_type = "";
                }
                if (message.data != null && Object.hasOwnProperty.call(message, "data"))
                    object.data = options.bytes === String ? $util.base64.encode(message.data, 0, message.data.length) : options.bytes === Array ? Array.prototype.slice.call(message.data) : message.data;
                if (message.mime_type != null && Object.hasOwnProperty.call(message, "mime_type"))
                    object.mime_type = message.mime_type;
                return object;
            };

            ImageContent.prototype.toJSON = function toJSON() {
                return this.constructor.toObject(this, $protobuf.util.toJSONOptions);
            };

            return ImageContent;
        })();

        v1.AudioContent = (function() {

            function AudioContent(properties) {
                if (properties)
                    for (let keys = Object.keys(properties), i = 0; i < keys.length; ++i)
                        if (properties[keys[i]] != null && keys[i] !== "__proto__")
                            this[keys[i]] = properties[keys[i]];
            }

            AudioContent.prototype.data = $util.newBuffer([]);
            AudioContent.prototype.mime_type = "";

            AudioContent.encode = function encode(message, writer, q) {
                if (!writer)
                    writer = $Writer.create();
                if (q === undefined)
                    q = 0;
                if (q > $util.recursionLimit)
                    throw Error("max depth exceeded");
                if (message.data != null && Object.hasOwnProperty.call(message, "data"))
                    writer.uint32(10).bytes(message.data);
                if (message.mime_type != null && Object.hasOwnProperty.call(message, "mime_type"))
                    writer.uint32(18).string(message.mime_type);
                return writer;
            };

            AudioContent.decode = function decode(reader, length, error, long) {
                if (!(reader instanceof $Reader))
                    reader = $Reader.create(reader);
                if (long === undefined)
                    long = 0;
                if (long > $Reader.recursionLimit)
                    throw Error("maximum nesting depth exceeded");
                let end, message;
                if (length === undefined)
                    end = reader.len;
                else {
                    end = reader.pos + length;
                    if (end > reader.len)
                        throw RangeError("index out of range");
                    length = reader.len;
                    reader.len = end;
                }
                message = new $root.rlfactory.v1.AudioContent();
                while (reader.pos < end) {
                    let tag = reader.uint32();
                    if (tag === error)
                        break;
                    switch (tag >>> 3) {
                    case 1: {
                            message.data = reader.bytes();
                            break;
                        }
                    case 2: {
                            message.mime_type = reader.string();
                            break;
                        }
                    default:
                        reader.skipType(tag & 7, long);
                        break;
                    }
                }
                if (length !== undefined) {
                    if (reader.pos !== end)
                        throw RangeError("index out of range");
                    reader.len = length;
                }
                return message;
            };

            AudioContent.fromObject = function fromObject(object, long) {
                if (object instanceof $root.rlfactory.v1.AudioContent)
                    return object;
                if (!$util.isObject(object))
                    throw TypeError(".rlfactory.v1.AudioContent: object expected");
                if (long === undefined)
                    long = 0;
                if (long > $util.recursionLimit)
                    throw Error("maximum nesting depth exceeded");
                let message = new $root.rlfactory.v1.AudioContent();
                if (object.data != null)
                    if (typeof object.data === "string")
                        $util.base64.decode(object.data, message.data = $util.newBuffer($util.base64.length(object.data)), 0);
                    else if (object.data.length >= 0)
                        message.data = object.data;
                if (object.mime_type != null)
                    message.mime_type = String(object.mime_type);
                return message;
            };

            AudioContent.toObject = function toObject(message, options, q) {
                if (!options)
                    options = {};
                if (q === undefined)
                    q = 0;
                if (q > $util.recursionLimit)
                    throw Error("max depth exceeded");
                let object = {};
                if (options.defaults) {
                    if (options.bytes === String)
                        object.data = "";
                    else {
                        object.data = [];
                        if (options.bytes !== Array)
                            object.data = $util.newBuffer(object.data);
                    }
                    object.mime_type = "";
                }
                if (message.data != null && Object.hasOwnProperty.call(message, "data"))
                    object.data = options.bytes === String ? $util.base64.encode(message.data, 0, message.data.length) : options.bytes === Array ? Array.prototype.slice.call(message.data) : message.data;
                if (message.mime_type != null && Object.hasOwnProperty.call(message, "mime_type"))
                    object.mime_type = message.mime_type;
                return object;
            };

            AudioContent.prototype.toJSON = function toJSON() {
                return this.constructor.toObject(this, $protobuf.util.toJSONOptions);
            };

            return AudioContent;
        })();

        v1.EmbeddedResource = (function() {

            function EmbeddedResource(properties) {
                if (properties)
                    for (let keys = Object.keys(properties), i = 0; i < keys.length; ++i)
                        if (properties[keys[i]] != null && keys[i] !== "__proto__")
                            this[keys[i]] = properties[keys[i]];
            }

            EmbeddedResource.prototype.uri = "";
            EmbeddedResource.prototype.mime_type = "";
            EmbeddedResource.prototype.text = "";
            EmbeddedResource.prototype.blob = $util.newBuffer([]);

            EmbeddedResource.encode = function encode(message, writer, q) {
                if (!writer)
                    writer = $Writer.create();
                if (q === undefined)
                    q = 0;
                if (q > $util.recursionLimit)
                    throw Error("max depth exceeded");
                if (message.uri != null && Object.hasOwnProperty.call(message, "uri"))
                    writer.uint32(10).string(message.uri);
                if (message.mime_type != null && Object.hasOwnProperty.call(message, "mime_type"))
                    writer.uint32(18).string(message.mime_type);
                if (message.text != null && Object.hasOwnProperty.call(message, "text"))
                    writer.uint32(26).string(message.text);
                if (message.blob != null && Object.hasOwnProperty.call(message, "blob"))
                    writer.uint32(34).bytes(message.blob);
                return writer;
            };

            EmbeddedResource.decode = function decode(reader, length, error, long) {
                if (!(reader instanceof $Reader))
                    reader = $Reader.create(reader);
                if (long === undefined)
                    long = 0;
                if (long > $Reader.recursionLimit)
                    throw Error("maximum nesting depth exceeded");
                let end, message;
                if (length === undefined)
                    end = reader.len;
                else {
                    end = reader.pos + length;
                    if (end > reader.len)
                        throw RangeError("index out of range");
                    length = reader.len;
                    reader.len = end;
                }
                message = new $root.rlfactory.v1.EmbeddedResource();
                while (reader.pos < end) {
                    let tag = reader.uint32();
                    if (tag === error)
                        break;
                    switch (tag >>> 3) {
                    case 1: {
                            message.uri = reader.string();
                            break;
                        }
                    case 2: {
                            message.mime_type = reader.string();
                            break;
                        }
                    case 3: {
                            message.text = reader.string();
                            break;
                        }
                    case 4: {
                            message.blob = reader.bytes();
                            break;
                        }
                    default:
                        reader.skipType(tag & 7, long);
                        break;
                    }
                }
                if (length !== undefined) {
                    if (reader.pos !== end)
                        throw RangeError("index out of range");
                    reader.len = length;
                }
                return message;
            };

            EmbeddedResource.fromObject = function fromObject(object, long) {
                if (object instanceof $root.rlfactory.v1.EmbeddedResource)
                    return object;
                if (!$util.isObject(object))
                    throw TypeError(".rlfactory.v1.EmbeddedResource: object expected");
                if (long === undefined)
                    long = 0;
                if (long > $util.recursionLimit)
                    throw Error("maximum nesting depth exceeded");
                let message = new $root.rlfactory.v1.EmbeddedResource();
                if (object.uri != null)
                    message.uri = String(object.uri);
                if (object.mime_type != null)
                    message.mime_type = String(object.mime_type);
                if (object.text != null)
                    message.text = String(object.text);
                if (object.blob != null)
                    if (typeof object.blob === "string")
                        $util.base64.decode(object.blob, message.blob = $util.newBuffer($util.base64.length(object.blob)), 0);
                    else if (object.blob.length >= 0)
                        message.blob = object.blob;
                return message;
            };

            EmbeddedResource.toObject = function toObject(message, options, q) {
                if (!options)
                    options = {};
                if (q === undefined)
                    q = 0;
                if (q > $util.recursionLimit)
                    throw Error("max depth exceeded");
                let object = {};
                if (options.defaults) {
                    object.uri = "";
                    object.mime_type = "";
                    object.text = "";
                    if (options.bytes === String)
                        object.blob = "";
                    else {
                        object.blob = [];
                        if (options.bytes !== Array)
                            object.blob = $util.newBuffer(object.blob);
                    }
                }
                if (message.uri != null && Object.hasOwnProperty.call(message, "uri"))
                    object.uri = message.uri;
                if (message.mime_type != null && Object.hasOwnProperty.call(message, "mime_type"))
                    object.mime_type = message.mime_type;
                if (message.text != null && Object.hasOwnProperty.call(message, "text"))
                    object.text = message.text;
                if (message.blob != null && Object.hasOwnProperty.call(message, "blob"))
                    object.blob = options.bytes === String ? $util.base64.encode(message.blob, 0, message.blob.length) : options.bytes === Array ? Array.prototype.slice.call(message.blob) : message.blob;
                return object;
            };

            EmbeddedResource.prototype.toJSON = function toJSON() {
                return this.constructor.toObject(this, $protobuf.util.toJSONOptions);
            };

            return EmbeddedResource;
        })();

        v1.ResourceLink = (function() {

            function ResourceLink(properties) {
                if (properties)
                    for (let keys = Object.keys(properties), i = 0; i < keys.length; ++i)
                        if (properties[keys[i]] != null && keys[i] !== "__proto__")
                            this[keys[i]] = properties[keys[i]];
            }

            ResourceLink.prototype.uri = "";
            ResourceLink.prototype.name = "";
            ResourceLink.prototype.description = "";
            ResourceLink.prototype.mime_type = "";

            ResourceLink.encode = function encode(message, writer, q) {
                if (!writer)
                    writer = $Writer.create();
                if (q === undefined)
                    q = 0;
                if (q > $util.recursionLimit)
                    throw Error("max depth exceeded");
                if (message.uri != null && Object.hasOwnProperty.call(message, "uri"))
                    writer.uint32(10).string(message.uri);
                if (message.name != null && Object.hasOwnProperty.call(message, "name"))
                    writer.uint32(18).string(message.name);
                if (message.description != null && Object.hasOwnProperty.call(message, "description"))
                    writer.uint32(26).string(message.description);
                if (message.mime_type != null && Object.hasOwnProperty.call(message, "mime_type"))
                    writer.uint32(34).string(message.mime_type);
                return writer;
            };

            ResourceLink.decode = function decode(reader, length, error, long) {
                if (!(reader instanceof $Reader))
                    reader = $Reader.create(reader);
                if (long === undefined)
                    long = 0;
                if (long > $Reader.recursionLimit)
                    throw Error("maximum nesting depth exceeded");
                let end, message;
                if (length === undefined)
                    end = reader.len;
                else {
                    end = reader.pos + length;
                    if (end > reader.len)
                        throw RangeError("index out of range");
                    length = reader.len;
                    reader.len = end;
                }
                message = new $root.rlfactory.v1.ResourceLink();
                while (reader.pos < end) {
                    let tag = reader.uint32();
                    if (tag === error)
                        break;
                    switch (tag >>> 3) {
                    case 1: {
                            message.uri = reader.string();
                            break;
                        }
                    case 2: {
                            message.name = reader.string();
                            break;
                        }
                    case 3: {
                            message.description = reader.string();
                            break;
                        }
                    case 4: {
                            message.mime_type = reader.string();
                            break;
                        }
                    default:
                        reader.skipType(tag & 7, long);
                        break;
                    }
                }
                if (length !== undefined) {
                    if (reader.pos !== end)
                        throw RangeError("index out of range");
                    reader.len = length;
                }
                return message;
            };

            ResourceLink.fromObject = function fromObject(object, long) {
                if (object instanceof $root.rlfactory.v1.ResourceLink)
                    return object;
                if (!$util.isObject(object))
                    throw TypeError(".rlfactory.v1.ResourceLink: object expected");
                if (long === undefined)
                    long = 0;
                if (long > $util.recursionLimit)
                    throw Error("maximum nesting depth exceeded");
                let message = new $root.rlfactory.v1.ResourceLink();
                if (object.uri != null)
                    message.uri = String(object.uri);
                if (object.name != null)
                    message.name = String(object.name);
                if (object.description != null)
                    message.description = String(object.description);
                if (object.mime_type != null)
                    message.mime_type = String(object.mime_type);
                return message;
            };

            ResourceLink.toObject = function toObject(message, options, q) {
                if (!options)
                    options = {};
                if (q === undefined)
                    q = 0;
                if (q > $util.recursionLimit)
                    throw Error("max depth exceeded");
                let object = {};
                if (options.defaults) {
                    object.uri = "";
                    object.name = "";
                    object.description = "";
                    object.mime_type = "";
                }
                if (message.uri != null && Object.hasOwnProperty.call(message, "uri"))
                    object.uri = message.uri;
                if (message.name != null && Object.hasOwnProperty.call(message, "name"))
                    object.name = message.name;
                if (message.description != null && Object.hasOwnProperty.call(message, "description"))
                    object.description = message.description;
                if (message.mime_type != null && Object.hasOwnProperty.call(message, "mime_type"))
                    object.mime_type = message.mime_type;
                return object;
            };

            ResourceLink.prototype.toJSON = function toJSON() {
                return this.constructor.toObject(this, $protobuf.util.toJSONOptions);
            };

            return ResourceLink;
        })();

        return v1;
    })();

    return rlfactory;
})();

export { $root as default };

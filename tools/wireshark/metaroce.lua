-- SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
--
-- Wireshark/tshark dissector for MetaRoCE extension packets
-- (Documentation/wire.rst, version 1).
--
-- It takes over the RoCEv2 UDP port (IBTA A17.2: 4791).  A packet whose
-- BTH opcode has transport bits 110b (0xC0-0xDF, IBTA 9.2 Table 35:
-- manufacturer specific) is decoded here; every other packet goes to the
-- dissector that owned the port before (Wireshark's InfiniBand one), so
-- RoCEv2 traffic looks as without this script, plus one item that checks
-- its ICRC (Wireshark's InfiniBand dissector does not) and shows the
-- MetaRoCE capability mark in BTH Resv7 when set.
--
-- Install: `make install` (Wireshark's global plugin folder), or copy to
-- ~/.local/lib/wireshark/plugins/, or tshark -X lua_script:metaroce.lua.

local ROCEV2_PORT = 4791

local p = Proto("metaroce", "MetaRoCE extension transport")

local op_names = {
	[0xc0] = "MR_SEND", [0xc1] = "MR_SEND_IMM", [0xc2] = "MR_SEND_INV",
	[0xc3] = "MR_WRITE", [0xc4] = "MR_WRITE_IMM",
	[0xc5] = "MR_READ_REQ", [0xc6] = "MR_READ_RESP", [0xc7] = "MR_ACK",
}

-- Headers after the BTH per opcode, in wire order (wire.rst "Packet kinds").
local op_hdrs = {
	[0xc0] = { "mxh", "msgh" },
	[0xc1] = { "mxh", "msgh", "immdt" },
	[0xc2] = { "mxh", "msgh", "ieth" },
	[0xc3] = { "mxh", "reth", "msgh" },
	[0xc4] = { "mxh", "reth", "msgh", "immdt" },
	[0xc5] = { "mxh", "reth" },
	[0xc6] = { "mxh", "msgh" },
	[0xc7] = { "mxh", "aeth", "sackh" },
}

local f = p.fields
f.opcode = ProtoField.uint8("metaroce.opcode", "Opcode", base.HEX, op_names)
f.se = ProtoField.bool("metaroce.bth.se", "Solicited event", 8, nil, 0x80)
f.mig = ProtoField.bool("metaroce.bth.mig", "MigReq", 8, nil, 0x40)
f.pad = ProtoField.uint8("metaroce.bth.pad", "Pad count", base.DEC, nil, 0x30)
f.tver = ProtoField.uint8("metaroce.bth.tver", "TVer", base.DEC, nil, 0x0f)
f.pkey = ProtoField.uint16("metaroce.bth.pkey", "P_Key", base.HEX)
f.dqpn = ProtoField.uint24("metaroce.bth.dqpn", "Destination QP", base.HEX)
f.ackreq = ProtoField.bool("metaroce.bth.ackreq", "AckReq", 8, nil, 0x80)
f.psn = ProtoField.uint24("metaroce.bth.psn", "PSN", base.DEC)
f.mark = ProtoField.uint8("metaroce.mark.ver",
	"MetaRoCE capability mark, highest version", base.DEC)
f.switched = ProtoField.bool("metaroce.mark.switched",
	"In the sender's MetaRoCE span", 8, nil, 0x20)
f.udp_csum = ProtoField.bool("metaroce.mark.udp_csum",
	"Offers the UDP checksum instead of the ICRC", 8, nil, 0x10)
f.ver = ProtoField.uint8("metaroce.ver", "Version", base.DEC, nil, 0xf0)
f.flags = ProtoField.uint8("metaroce.flags", "Flags", base.HEX)
f.first = ProtoField.bool("metaroce.flags.first", "First", 8, nil, 0x80)
f.last = ProtoField.bool("metaroce.flags.last", "Last", 8, nil, 0x40)
f.ece = ProtoField.bool("metaroce.flags.ece", "ECN echo", 8, nil, 0x20)
f.dup = ProtoField.bool("metaroce.flags.dup", "Duplicate arrived", 8, nil,
	0x10)
f.path = ProtoField.uint16("metaroce.path", "Path id", base.DEC)
f.ts = ProtoField.uint32("metaroce.ts", "Timestamp (ns)", base.DEC)
f.tse = ProtoField.uint32("metaroce.tse", "Timestamp echo (ns)", base.DEC)
f.msn = ProtoField.uint24("metaroce.msn", "Message sequence number")
f.offset = ProtoField.uint32("metaroce.offset", "Offset", base.DEC)
f.msglen = ProtoField.uint32("metaroce.msglen", "Message length", base.DEC)
f.va = ProtoField.uint64("metaroce.reth.va", "Virtual address", base.HEX)
f.rkey = ProtoField.uint32("metaroce.reth.rkey", "R_Key", base.HEX)
f.dmalen = ProtoField.uint32("metaroce.reth.len", "DMA length", base.DEC)
f.syndrome = ProtoField.uint8("metaroce.aeth.syndrome", "Syndrome",
	base.HEX)
f.amsn = ProtoField.uint24("metaroce.aeth.msn", "MSN", base.DEC)
f.words = ProtoField.uint8("metaroce.sack.words", "SACK words", base.DEC)
f.sackpsn = ProtoField.uint24("metaroce.sack.psn", "SACKed PSN", base.DEC)
f.imm = ProtoField.uint32("metaroce.imm", "Immediate data", base.HEX)
f.ieth = ProtoField.uint32("metaroce.ieth.rkey", "Invalidate R_Key",
	base.HEX)
f.payload = ProtoField.bytes("metaroce.payload", "Payload")
f.icrc = ProtoField.uint32("metaroce.icrc", "ICRC", base.HEX)
f.icrc_status = ProtoField.string("metaroce.icrc.status",
	"ICRC status (good, bad, unverified, udp-csum)")

local e_malformed = ProtoExpert.new("metaroce.malformed",
	"Malformed MetaRoCE packet", expert.group.MALFORMED,
	expert.severity.ERROR)
local e_icrc = ProtoExpert.new("metaroce.icrc.bad", "ICRC mismatch",
	expert.group.CHECKSUM, expert.severity.ERROR)
local e_reserved = ProtoExpert.new("metaroce.reserved",
	"Reserved bits set: a version 1 receiver drops this packet",
	expert.group.MALFORMED, expert.severity.WARN)
p.experts = { e_malformed, e_icrc, e_reserved }

local BTH_LEN, ICRC_LEN = 12, 4

-- The ICRC check runs a byte at a time in Lua: it can be turned off for
-- large captures (tshark -o metaroce.check_icrc:FALSE).
p.prefs.check_icrc = Pref.bool("Check the ICRC", true,
	"Verify the ICRC of every RoCEv2 and MetaRoCE packet")

-- Fixed-size headers: title, length, and { field, offset, length } items
-- (an item's "bits" are flag fields shown under it); "rsv" lists
-- { offset, mask } of reserved bits, which must be 0.
local layouts = {
	bth = { "Base Transport Header", BTH_LEN, {
		{ f.opcode, 0, 1 }, { f.se, 1, 1 }, { f.mig, 1, 1 },
		{ f.pad, 1, 1 }, { f.tver, 1, 1 }, { f.pkey, 2, 2 },
		{ f.dqpn, 5, 3 }, { f.ackreq, 8, 1 }, { f.psn, 9, 3 } } },
	mxh = { "MetaRoCE Extension Header", 12, {
		{ f.ver, 0, 1 },
		{ f.flags, 1, 1, bits = { f.first, f.last, f.ece, f.dup } },
		{ f.path, 2, 2 }, { f.ts, 4, 4 }, { f.tse, 8, 4 } },
		rsv = { { 0, 0x0f }, { 1, 0x0f } } },
	msgh = { "Message Header", 12, {
		{ f.msn, 1, 3 }, { f.offset, 4, 4 }, { f.msglen, 8, 4 } },
		rsv = { { 0, 0xff } } },
	reth = { "RDMA Extended Transport Header", 16, {
		{ f.va, 0, 8 }, { f.rkey, 8, 4 }, { f.dmalen, 12, 4 } } },
	aeth = { "ACK Extended Transport Header", 4, {
		{ f.syndrome, 0, 1 }, { f.amsn, 1, 3 } } },
	immdt = { "Immediate Data", 4, { { f.imm, 0, 4 } } },
	ieth = { "Invalidate Extended Transport Header", 4, {
		{ f.ieth, 0, 4 } } },
}

-- Each header dissector gets the tvb at its start, returns its length or
-- nil if the packet is too short.
local hdr = {}

for name, l in pairs(layouts) do
	hdr[name] = function(t, tvb)
		if tvb:len() < l[2] then return nil end
		local st = t:add(p, tvb(0, l[2]), l[1])
		for _, it in ipairs(l[3]) do
			local item = st:add(it[1], tvb(it[2], it[3]))
			for _, bf in ipairs(it.bits or {}) do
				item:add(bf, tvb(it[2], it[3]))
			end
		end
		for _, r in ipairs(l.rsv or {}) do
			if bit32.btest(tvb(r[1], 1):uint(), r[2]) then
				st:add_proto_expert_info(e_reserved)
			end
		end
		return l[2]
	end
end

-- SACK bitmap: bit i (LSB first within each big-endian 64-bit word) is
-- PSN BTH.psn + 1 + i.
function hdr.sackh(t, tvb, psn)
	if tvb:len() < 4 then return nil end
	local words = tvb(0, 1):uint()
	local len = 4 + 8 * words
	if words > 4 or tvb:len() < len then return nil end
	local st = t:add(p, tvb(0, len), "Selective ACK Header")
	st:add(f.words, tvb(0, 1))
	-- Bytes 1-3 are reserved; bit 0 (the first missing PSN) must be 0.
	if tvb(1, 3):uint() ~= 0 or
	    (words > 0 and bit32.btest(tvb(11, 1):uint(), 1)) then
		st:add_proto_expert_info(e_reserved)
	end
	for w = 0, words - 1 do
		for byte = 0, 7 do
			local off = 4 + 8 * w + byte
			local v = tvb(off, 1):uint()
			for bit = 0, 7 do
				if bit32.btest(v, bit32.lshift(1, bit)) then
					local i = 64 * w + 8 * (7 - byte) + bit
					st:add(f.sackpsn, tvb(off, 1),
						(psn + 1 + i) % 0x1000000)
				end
			end
		end
	end
	return len
end

-- ICRC (IBTA A17.8): CRC-32 over 8 bytes of ones (the LRH a RoCEv2
-- packet does not have), the IP header with the fields routers change set
-- to ones, the UDP header with its checksum set to ones, and the BTH with
-- byte 4 (FECN, BECN, resv6) set to ones, then the rest up to the ICRC.
local crc_table = {}
for i = 0, 255 do
	local c = i
	for _ = 1, 8 do
		if bit32.btest(c, 1) then
			c = bit32.bxor(0xedb88320, bit32.rshift(c, 1))
		else
			c = bit32.rshift(c, 1)
		end
	end
	crc_table[i] = c
end

local function crc_byte(crc, b)
	return bit32.bxor(crc_table[bit32.band(bit32.bxor(crc, b), 0xff)],
		bit32.rshift(crc, 8))
end

-- Feed @n bytes of ByteArray @ba to @crc; @ones lists offsets read as 0xff,
-- @low offsets whose low nibble is read as ones (IPv6 traffic class).
local function crc_bytes(crc, ba, n, ones, low)
	for i = 0, n - 1 do
		local b = ba:get_index(i)
		if ones[i] then b = 0xff end
		if low and low[i] then b = bit32.bor(b, 0x0f) end
		crc = crc_byte(crc, b)
	end
	return crc
end

local ip_field, ipv6_field = Field.new("ip"), Field.new("ipv6")
local udp_field = Field.new("udp")

-- The innermost header of a protocol in this packet, as bytes.
local function last_range(field)
	local all = { field() }
	local fi = all[#all]
	return fi and fi.range and fi.range:bytes() or nil
end

-- true or false, or nil when the IP and UDP headers are not at hand.
local function icrc_check(tvb, room)
	local v4, v6 = last_range(ip_field), last_range(ipv6_field)
	local udp = last_range(udp_field)
	if not udp or not (v4 or v6) then return nil end
	local crc = 0xffffffff
	for _ = 1, 8 do crc = crc_byte(crc, 0xff) end
	if v4 then
		crc = crc_bytes(crc, v4, 20, { [1] = 1, [8] = 1, [10] = 1, [11] = 1 })
	else
		crc = crc_bytes(crc, v6, 40, { [1] = 1, [2] = 1, [3] = 1, [7] = 1 },
			{ [0] = 1 })
	end
	crc = crc_bytes(crc, udp, 8, { [6] = 1, [7] = 1 })
	crc = crc_bytes(crc, tvb(0, room):bytes(), room, { [4] = 1 })
	return bit32.bnot(crc) == tvb(room, ICRC_LEN):le_uint()
end

-- Under @it, whether the ICRC at the end of @tvb is right.  The ICRC
-- field shows the bytes as they are on the wire (like the InfiniBand
-- dissector's "Invariant CRC"); the CRC register is stored LSB first.
--
-- A packet whose mark offers the UDP checksum and whose UDP checksum is not
-- zero is protected by that checksum, not the ICRC (wire.rst, "Integrity:
-- UDP checksum instead of ICRC"): its ICRC field is zero, "udp-csum".
local function icrc_item(it, tvb, csum)
	if not p.prefs.check_icrc then return end
	local udp = last_range(udp_field)
	if csum and udp and udp:get_index(6) + udp:get_index(7) ~= 0 then
		it:add(f.icrc_status, "udp-csum")
		return
	end
	local good = icrc_check(tvb, tvb:len() - ICRC_LEN)
	if good == nil then
		it:add(f.icrc_status, "unverified")
	elseif good then
		it:add(f.icrc_status, "good")
	else
		it:add(f.icrc_status, "bad")
		it:add_proto_expert_info(e_icrc)
	end
end

local function dissect_ext(tvb, pinfo, tree)
	local op = tvb(0, 1):uint()
	pinfo.cols.protocol = "MetaRoCE"
	local t = tree:add(p, tvb(), "MetaRoCE")
	if tvb:len() < BTH_LEN + ICRC_LEN then
		t:add_proto_expert_info(e_malformed, "shorter than BTH + ICRC")
		return tvb:len()
	end
	hdr.bth(t, tvb)
	local psn = tvb(9, 3):uint()
	local name = op_names[op] or string.format("reserved 0x%02x", op)
	pinfo.cols.info = string.format("%s QP=0x%06x PSN=%d", name,
		tvb(5, 3):uint(), psn)
	local hdrs = op_hdrs[op]
	if not hdrs then
		t:add_proto_expert_info(e_malformed, "opcode reserved for later "
			.. "MetaRoCE versions")
		return tvb:len()
	end
	local off, room = BTH_LEN, tvb:len() - ICRC_LEN
	for _, h in ipairs(hdrs) do
		local n = hdr[h](t, tvb(off, room - off), psn)
		if not n then
			t:add_proto_expert_info(e_malformed, "truncated " .. h)
			return tvb:len()
		end
		off = off + n
	end
	local pad = bit32.rshift(bit32.band(tvb(1, 1):uint(), 0x30), 4)
	if room - off - pad > 0 then
		t:add(f.payload, tvb(off, room - off - pad))
	end
	icrc_item(t:add(f.icrc, tvb(room, ICRC_LEN)), tvb)
	return tvb:len()
end

local udp_port = DissectorTable.get("udp.port")
local roce = udp_port:get_dissector(ROCEV2_PORT)

function p.dissector(tvb, pinfo, tree)
	if tvb:len() < 1 then return 0 end
	if bit32.band(tvb(0, 1):uint(), 0xe0) == 0xc0 then
		return dissect_ext(tvb, pinfo, tree)
	end
	local n = roce and roce:call(tvb, pinfo, tree) or 0
	-- RoCEv2 packet: Wireshark 4.0's InfiniBand dissector does not check
	-- the ICRC, so check it here; show the capability mark (Resv7 bit 6,
	-- version in bits 3:0, switch bit 5, UDP checksum option bit 4) when
	-- it is set.
	if tvb:len() >= BTH_LEN + ICRC_LEN then
		local t = tree:add(p, tvb(), "MetaRoCE checks of a RoCEv2 packet")
		local r7 = bit32.band(tvb(8, 1):uint(), 0x7f)
		local csum = false
		if bit32.band(r7, 0x40) == 0x40 and bit32.band(r7, 0x0f) ~= 0 then
			t:add(f.mark, tvb(8, 1), bit32.band(r7, 0x0f))
			t:add(f.switched, tvb(8, 1))
			t:add(f.udp_csum, tvb(8, 1))
			csum = bit32.band(r7, 0x10) ~= 0
		end
		icrc_item(t:add(f.icrc, tvb(tvb:len() - ICRC_LEN, ICRC_LEN)),
			tvb, csum)
	end
	return n
end

udp_port:add(ROCEV2_PORT, p)

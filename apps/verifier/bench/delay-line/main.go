// delay-line holds every packet of one netfilter queue (NFQUEUE) for a fixed time, then accepts it.
// The kernel keeps each packet; only its verdict waits, so the packet leaves unchanged, in arrival
// order, `-delay` after the kernel stamped its arrival (plus the verdict's lateness, which it
// reports). It is the verifier accuracy bench's ground-truth delay where the kernel has no sch_netem;
// it is not netem.
//
//	delay-line -queue 4711 -delay 20ms
//
// It prints "ready" once bound, and on SIGTERM/SIGINT a summary in microseconds: packets; the mean,
// median and max lateness (how much later than due the verdict syscall returned, by when the kernel
// has passed the packet on); the median time the verdict syscall took; and the median time from the
// kernel's arrival stamp to this process reading the packet (what timing from the read would add).
package main

import (
	"encoding/binary"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"time"
)

const (
	netlinkNetfilter = 12
	subsysQueue      = 3
	msgPacket        = 0
	msgVerdict       = 1
	msgConfig        = 2
	attrPacketHdr    = 1
	attrVerdictHdr   = 2
	attrTimestamp    = 4
	attrCfgCmd       = 1
	attrCfgParams    = 2
	attrCfgMaxLen    = 3
	cmdBind          = 1
	copyMeta         = 1
	nfAccept         = 1
	nlmFRequest      = 1
	nlmFAck          = 4
	nlmsgError       = 2
)

// How long before a packet's due time the release stops sleeping and spins.
const spinWindow = 1500 * time.Microsecond

type held struct {
	id  uint32
	due time.Time
	// From the kernel's arrival stamp to the read (zero when the packet had no usable stamp).
	readLag time.Duration
}

func main() {
	queue := flag.Uint("queue", 0, "netfilter queue number")
	delay := flag.Duration("delay", 20*time.Millisecond, "how long every packet is held")
	flag.Parse()
	enableTimestamps()
	fd, err := syscall.Socket(syscall.AF_NETLINK, syscall.SOCK_RAW, netlinkNetfilter)
	check(err, "socket")
	check(syscall.SetsockoptInt(fd, syscall.SOL_SOCKET, syscall.SO_RCVBUFFORCE, 16<<20), "rcvbuf")
	check(syscall.Bind(fd, &syscall.SockaddrNetlink{Family: syscall.AF_NETLINK}), "bind")
	q := uint16(*queue)
	send(fd, msgConfig, q, attr(attrCfgCmd, []byte{cmdBind, 0, 0, 0}))
	params := make([]byte, 5)
	params[4] = copyMeta
	send(fd, msgConfig, q, attr(attrCfgParams, params))
	send(fd, msgConfig, q, attr(attrCfgMaxLen, be32(65536)))
	line := make(chan held, 65536)
	done := make(chan struct{})
	stats := make(chan timings, 1)
	go release(fd, q, line, done, stats)
	go receive(fd, *delay, line)
	stop := make(chan os.Signal, 1)
	signal.Notify(stop, syscall.SIGTERM, syscall.SIGINT)
	fmt.Println("ready")
	<-stop
	close(done)
	(<-stats).print()
}

// receive queues every packet's id with its due time.
func receive(fd int, delay time.Duration, line chan<- held) {
	buf := make([]byte, 1<<20)
	for {
		n, _, err := syscall.Recvfrom(fd, buf, 0)
		if err == syscall.ENOBUFS || err == syscall.EINTR {
			continue
		}
		check(err, "recv")
		now := time.Now()
		for off := 0; off+16 <= n; {
			size := int(binary.LittleEndian.Uint32(buf[off:]))
			kind := binary.LittleEndian.Uint16(buf[off+4:])
			if size < 16 || off+size > n {
				break
			}
			if kind == nlmsgError {
				if code := int32(binary.LittleEndian.Uint32(buf[off+16:])); code != 0 {
					fmt.Fprintf(os.Stderr, "netlink error %d\n", -code)
					os.Exit(1)
				}
			} else if kind == subsysQueue<<8|msgPacket {
				id, arrived, ok := packetInfo(buf[off+20 : off+size])
				// No stamp, or one not on the wall clock (TCP's departure times): from now.
				if arrived.IsZero() || arrived.After(now) || now.Sub(arrived) > time.Second {
					arrived = now
				}
				if ok {
					line <- held{id: id, due: arrived.Add(delay), readLag: now.Sub(arrived)}
				}
			}
			off += (size + 3) &^ 3
		}
	}
}

// release accepts each packet at its due time, in order (a fixed delay keeps arrival order), until
// done; packets still held then are dropped by the kernel when the socket closes.
func release(fd int, queue uint16, line <-chan held, done <-chan struct{}, stats chan<- timings) {
	var measured timings
	for {
		var packet held
		select {
		case packet = <-line:
		case <-done:
			stats <- measured
			return
		}
		// The runtime's timers can wake a millisecond late, so sleep short and spin the rest.
		if wait := time.Until(packet.due) - spinWindow; wait > 0 {
			time.Sleep(wait)
		}
		for time.Now().Before(packet.due) {
		}
		verdict := append(be32(nfAccept), be32(packet.id)...)
		sent := time.Now()
		// The kernel re-injects the packet within this syscall (on to local delivery), so the
		// lateness counts until it returns.
		sendNoAck(fd, msgVerdict, queue, attr(attrVerdictHdr, verdict))
		returned := time.Now()
		measured.late = append(measured.late, returned.Sub(packet.due))
		measured.verdict = append(measured.verdict, returned.Sub(sent))
		measured.readLag = append(measured.readLag, packet.readLag)
	}
}

// packetInfo reads the packet id and, when the kernel stamped the packet, when it arrived (so the
// delay runs from the packet's arrival, not from when this process got to read it).
func packetInfo(attrs []byte) (id uint32, arrived time.Time, ok bool) {
	for off := 0; off+4 <= len(attrs); {
		size := int(binary.LittleEndian.Uint16(attrs[off:]))
		kind := binary.LittleEndian.Uint16(attrs[off+2:]) & 0x3fff
		if size < 4 || off+size > len(attrs) {
			break
		}
		switch {
		case kind == attrPacketHdr && size >= 8:
			id, ok = binary.BigEndian.Uint32(attrs[off+4:]), true
		case kind == attrTimestamp && size >= 20:
			sec := int64(binary.BigEndian.Uint64(attrs[off+4:]))
			usec := int64(binary.BigEndian.Uint64(attrs[off+12:]))
			arrived = time.Unix(sec, usec*1000)
		}
		off += (size + 3) &^ 3
	}
	return id, arrived, ok
}

// enableTimestamps keeps a socket with SO_TIMESTAMP open, which makes the kernel stamp every
// received packet on arrival (and hand the stamp to the queue as NFQA_TIMESTAMP).
func enableTimestamps() {
	sock, err := syscall.Socket(syscall.AF_INET, syscall.SOCK_DGRAM, 0)
	check(err, "timestamp socket")
	check(syscall.SetsockoptInt(sock, syscall.SOL_SOCKET, syscall.SO_TIMESTAMP, 1), "SO_TIMESTAMP")
}

func attr(kind uint16, value []byte) []byte {
	out := make([]byte, (4+len(value)+3)&^3)
	binary.LittleEndian.PutUint16(out, uint16(4+len(value)))
	binary.LittleEndian.PutUint16(out[2:], kind)
	copy(out[4:], value)
	return out
}

func be32(value uint32) []byte {
	out := make([]byte, 4)
	binary.BigEndian.PutUint32(out, value)
	return out
}

func message(kind uint16, flags uint16, queue uint16, payload []byte) []byte {
	out := make([]byte, 20+len(payload))
	binary.LittleEndian.PutUint32(out, uint32(len(out)))
	binary.LittleEndian.PutUint16(out[4:], subsysQueue<<8|kind)
	binary.LittleEndian.PutUint16(out[6:], flags)
	out[16] = syscall.AF_UNSPEC
	binary.BigEndian.PutUint16(out[18:], queue)
	copy(out[20:], payload)
	return out
}

func send(fd int, kind uint16, queue uint16, payload []byte) {
	sendRaw(fd, message(kind, nlmFRequest|nlmFAck, queue, payload))
}

func sendNoAck(fd int, kind uint16, queue uint16, payload []byte) {
	sendRaw(fd, message(kind, nlmFRequest, queue, payload))
}

func sendRaw(fd int, msg []byte) {
	check(syscall.Sendto(fd, msg, 0, &syscall.SockaddrNetlink{Family: syscall.AF_NETLINK}), "send")
}

func check(err error, what string) {
	if err != nil {
		fmt.Fprintf(os.Stderr, "%s: %v\n", what, err)
		os.Exit(1)
	}
}

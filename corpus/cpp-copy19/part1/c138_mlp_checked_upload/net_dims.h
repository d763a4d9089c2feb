#ifndef NET_DIMS_H
#define NET_DIMS_H

#define NET_IN 784
#define NET_HID 256
#define NET_OUT 10
#define NET_BATCH 32

#define L1_W (NET_IN * NET_HID)
#define L2_W (NET_HID * NET_OUT)

#endif

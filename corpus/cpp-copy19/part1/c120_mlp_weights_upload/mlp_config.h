#ifndef MLP_CONFIG_H
#define MLP_CONFIG_H

#define MLP_IN 784
#define MLP_HID 128
#define MLP_OUT 10
#define MLP_BATCH 64

#define W1_ELEMS (MLP_IN * MLP_HID)
#define W2_ELEMS (MLP_HID * MLP_OUT)

#endif

prop.allocFlags.compressionType = CU_MEM_ALLOCATION_COMP_GENERIC;

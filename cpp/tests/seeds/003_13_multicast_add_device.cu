cuMulticastAddDevice(&mcHandle, device);

    #include <stdio.h>
    #include <stdlib.h>
    main( int argc, char* argv[] ){
        float *a, *b;
        int n, i;
        n = atoi( argv[1] );
        /* allocate */
        a = (float*)malloc( sizeof(float)*n );
        b = (float*)malloc( sizeof(float)*n );
        /* initialize */
        for( i = 0; i < n; ++i ){ a[i] = i; b[i] = 2*i; }
        /* run a parallel loop */
        #pragma acc parallel loop
        for( i = 0; i < n; ++i ) a[i] *= b[i];
        /* print partial results */
        printf( "%f %f %f\n", a[0], a[1], a[2] );
        printf( "%f %f %f\n", a[n-3], a[n-2], a[n-1] );
        return 0;

import json

def lookup_weather_85f2ca4bcccd(**arguments):
    return "nothing relevant for " + json.dumps(arguments, sort_keys=True)
